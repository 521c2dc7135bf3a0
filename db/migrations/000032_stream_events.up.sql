-- The event stream's durable rows (GET /api/v1/stream, issue 38; docs/design.md, "Event stream").
--
-- A member with stream presence (an open stream, or one closed less than the resume window ago)
-- gets one stream_events row per event, written in the transaction of its cause by the statement
-- triggers below: a notification created, a message delivered to them, a conversation's unread
-- count changing, a post entering their home timeline, a post of their timeline deleted. A row
-- holds references only; the server renders the payload when it delivers the event, through the
-- lists' code and visibility rule.
--
-- Event ids are per member and increase in commit order: a row is numbered (seq) when its
-- transaction commits, by a deferred trigger that holds the member's presence row meanwhile. So
-- a stream that has delivered seq n never meets a smaller seq later, and resuming after n is
-- exact. The presence rows are locked in member order, all at once at commit, so two committing
-- transactions never wait on each other in a cycle.

-- One row per member who ever held a stream: until is the end of their presence (events are
-- written while it is in the future); last_seq the last event id given; since_seq last_seq when
-- the current presence began (an event id at or below it may have missed events: refetch).
CREATE TABLE stream_presence (
    member_id bigint      NOT NULL,
    until     timestamptz NOT NULL,
    since_seq bigint      NOT NULL DEFAULT 0,
    last_seq  bigint      NOT NULL DEFAULT 0,
    CONSTRAINT stream_presence_pkey PRIMARY KEY (member_id),
    CONSTRAINT stream_presence_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
);

CREATE TABLE stream_events (
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    member_id  bigint      NOT NULL,
    -- The event id the member sees; null until the transaction commits (stream_number).
    seq        bigint,
    kind       text        NOT NULL,
    -- notification: the notification; message: the message (ref2: its conversation);
    -- conversation: the conversation; post and delete: the post (ref2: its author).
    ref_id     bigint      NOT NULL,
    ref2_id    bigint,
    -- When the row was numbered: pruned after the resume window.
    created_at timestamptz NOT NULL DEFAULT now(),
    -- The transaction that wrote the row: the numbering at its commit finds its rows by it.
    xact       xid8        NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT stream_events_pkey PRIMARY KEY (id),
    CONSTRAINT stream_events_kind_check CHECK (kind IN ('notification', 'message', 'conversation', 'post', 'delete'))
);
-- A stream's read: the member's events after the last it delivered.
CREATE UNIQUE INDEX stream_events_member_seq_key ON stream_events (member_id, seq);
-- The numbering at commit finds its transaction's rows by an exact key: a scan of every
-- unnumbered entry also read the entries of rows numbered earlier and not yet vacuumed.
CREATE INDEX stream_events_unnumbered_idx ON stream_events (xact) WHERE seq IS NULL;
-- Pruning.
CREATE INDEX stream_events_created_at_idx ON stream_events (created_at);

-- stream_number numbers the transaction's events at commit: it locks the presence rows of their
-- members in member order, gives each event the next seq of its member, records the last, and
-- notifies channel 'stream' with the members' ids (comma-separated, in chunks that keep each
-- payload far below NOTIFY's 8000 bytes). It runs once per transaction: the first of its
-- deferred firings does the work, the others find the flag set.
CREATE FUNCTION stream_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ms bigint[];
    chunk text;
BEGIN
    IF current_setting('socialapi.stream_numbered', true) = pg_current_xact_id()::text THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('socialapi.stream_numbered', pg_current_xact_id()::text, true);
    SELECT array_agg(DISTINCT member_id ORDER BY member_id) INTO ms
      FROM stream_events WHERE seq IS NULL AND xact = pg_current_xact_id();
    IF ms IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM stream_presence WHERE member_id = ANY (ms) ORDER BY member_id FOR NO KEY UPDATE;
    WITH numbered AS (
        UPDATE stream_events e
           SET seq = sp.last_seq + s.n, created_at = clock_timestamp()
          FROM (SELECT u.id, u.member_id, row_number() OVER (PARTITION BY u.member_id ORDER BY u.id) AS n
                  FROM stream_events u WHERE u.seq IS NULL AND u.xact = pg_current_xact_id()) s
          JOIN stream_presence sp ON sp.member_id = s.member_id
         WHERE e.id = s.id
        RETURNING e.member_id, e.seq
    )
    UPDATE stream_presence sp
       SET last_seq = m.seq
      FROM (SELECT member_id, max(seq) AS seq FROM numbered GROUP BY member_id) m
     WHERE sp.member_id = m.member_id;
    FOR chunk IN
        SELECT string_agg(m::text, ',') FROM unnest(ms) WITH ORDINALITY AS u(m, i) GROUP BY (i - 1) / 400
    LOOP
        PERFORM pg_notify('stream', chunk);
    END LOOP;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER stream_events_number AFTER INSERT ON stream_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stream_number();

-- The triggers of the causes. Each writes the events of one statement at once, for the members
-- with presence (stream_presence.until in the future; one probe of its key per member).

CREATE FUNCTION stream_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id)
    SELECT n.recipient_id, 'notification', n.id
      FROM created n JOIN stream_presence sp ON sp.member_id = n.recipient_id AND sp.until > now()
     ORDER BY n.id;
    RETURN NULL;
END $$;
CREATE TRIGGER notifications_stream AFTER INSERT ON notifications
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION stream_notifications();

-- A message goes to every participant but its sender.
CREATE FUNCTION stream_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id, ref2_id)
    SELECT cp.member_id, 'message', m.id, m.conversation_id
      FROM created m
      JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id AND cp.member_id <> m.sender_id
      JOIN stream_presence sp ON sp.member_id = cp.member_id AND sp.until > now()
     ORDER BY m.id, cp.member_id;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_stream AFTER INSERT ON messages
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION stream_messages();

-- A participant's unread count changed (a message received, the conversation marked read).
CREATE FUNCTION stream_unread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id)
    SELECT n.member_id, 'conversation', n.conversation_id
      FROM after_rows n
      JOIN before_rows o ON o.conversation_id = n.conversation_id AND o.member_id = n.member_id
      JOIN stream_presence sp ON sp.member_id = n.member_id AND sp.until > now()
     WHERE n.unread_count <> o.unread_count;
    RETURN NULL;
END $$;
CREATE TRIGGER conversation_participants_stream AFTER UPDATE ON conversation_participants
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION stream_unread();

-- A post enters a home timeline: the author's own row with the post, the fan-out's rows, a
-- follow's merge. Rows of posts older than a day (a follow merging a followee's past posts, a
-- dormant timeline rebuilt) are not announced: the client's next list read shows them.
CREATE FUNCTION stream_timeline() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id, ref2_id)
    SELECT t.member_id, 'post', t.post_id, t.author_id
      FROM created t JOIN stream_presence sp ON sp.member_id = t.member_id AND sp.until > now()
     WHERE t.created_at > now() - interval '1 day'
     ORDER BY t.created_at, t.post_id;
    RETURN NULL;
END $$;
CREATE TRIGGER timeline_stream AFTER INSERT ON timeline
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION stream_timeline();

-- A deleted post leaves the timelines of its author and of the author's followers.
CREATE FUNCTION stream_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id, ref2_id)
    SELECT sp.member_id, 'delete', d.id, d.author_id
      FROM deleted d
      JOIN stream_presence sp ON sp.until > now()
       AND (sp.member_id = d.author_id
            OR sp.member_id IN (SELECT f.follower_id FROM follows f WHERE f.followee_id = d.author_id))
     WHERE d.visibility <> 'private' OR sp.member_id = d.author_id;
    RETURN NULL;
END $$;
CREATE TRIGGER posts_stream AFTER DELETE ON posts
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION stream_deleted_posts();
