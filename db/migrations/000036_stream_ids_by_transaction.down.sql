-- Back to migration 000034's form: events staged in stream_pending and numbered per member at
-- commit, under a lock of the members' presence rows. The numbering goes on from each member's
-- largest id, so ids still increase; presence begins again there.
DROP FUNCTION stream_put(text, stream_ref[]);
DROP TYPE stream_ref;
DROP FUNCTION stream_base();

DROP INDEX stream_events_seq_idx;
ALTER TABLE stream_events ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX stream_events_created_at_idx ON stream_events (created_at);

ALTER TABLE stream_presence ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
UPDATE stream_presence sp
   SET last_seq = GREATEST(sp.since_seq, COALESCE((SELECT max(e.seq) FROM stream_events e WHERE e.member_id = sp.member_id), 0));
UPDATE stream_presence SET since_seq = last_seq;

CREATE UNLOGGED TABLE stream_pending (
    -- The transaction that staged the row: the numbering at its commit finds its rows by it.
    xact      xid8   NOT NULL DEFAULT pg_current_xact_id(),
    -- The order of the transaction's events of one member.
    n         bigint GENERATED ALWAYS AS IDENTITY,
    member_id bigint NOT NULL,
    kind      text   NOT NULL,
    ref_id    bigint NOT NULL,
    ref2_id   bigint,
    CONSTRAINT stream_pending_kind_check CHECK (kind IN ('notification', 'message', 'conversation', 'post', 'delete'))
);
CREATE INDEX stream_pending_xact_idx ON stream_pending (xact);
-- Staged rows are deleted at commit: vacuum early, as for the other queues.
ALTER TABLE stream_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

-- stream_number moves the transaction's staged events into stream_events at commit: it locks the
-- presence rows of their members in member order, gives each event the next seq of its member,
-- records the last, and notifies channel 'stream' with the members' ids (comma-separated, in
-- chunks that keep each payload far below NOTIFY's 8000 bytes). It runs once per transaction: the
-- first of its deferred firings does the work, the others find the flag set.
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
      FROM stream_pending WHERE xact = pg_current_xact_id();
    IF ms IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM stream_presence WHERE member_id = ANY (ms) ORDER BY member_id FOR NO KEY UPDATE;
    WITH staged AS (
        DELETE FROM stream_pending WHERE xact = pg_current_xact_id()
        RETURNING n, member_id, kind, ref_id, ref2_id
    ), numbered AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id, ref2_id, created_at)
        SELECT s.member_id, sp.last_seq + row_number() OVER (PARTITION BY s.member_id ORDER BY s.n),
               s.kind, s.ref_id, s.ref2_id, clock_timestamp()
          FROM staged s JOIN stream_presence sp ON sp.member_id = s.member_id
        RETURNING member_id, seq
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

CREATE CONSTRAINT TRIGGER stream_pending_number AFTER INSERT ON stream_pending
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stream_number();

-- The causes' triggers (migration 000032) stage their events.
CREATE OR REPLACE FUNCTION stream_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_pending (member_id, kind, ref_id)
    SELECT n.recipient_id, 'notification', n.id
      FROM created n JOIN stream_presence sp ON sp.member_id = n.recipient_id AND sp.until > now()
     ORDER BY n.id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_pending (member_id, kind, ref_id, ref2_id)
    SELECT cp.member_id, 'message', m.id, m.conversation_id
      FROM created m
      JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id AND cp.member_id <> m.sender_id
      JOIN stream_presence sp ON sp.member_id = cp.member_id AND sp.until > now()
     ORDER BY m.id, cp.member_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_unread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_pending (member_id, kind, ref_id)
    SELECT n.member_id, 'conversation', n.conversation_id
      FROM after_rows n
      JOIN before_rows o ON o.conversation_id = n.conversation_id AND o.member_id = n.member_id
      JOIN stream_presence sp ON sp.member_id = n.member_id AND sp.until > now()
     WHERE n.unread_count <> o.unread_count;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_timeline() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_pending (member_id, kind, ref_id, ref2_id)
    SELECT t.member_id, 'post', t.post_id, t.author_id
      FROM created t JOIN stream_presence sp ON sp.member_id = t.member_id AND sp.until > now()
     WHERE t.created_at > now() - interval '1 day'
     ORDER BY t.created_at, t.post_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_pending (member_id, kind, ref_id, ref2_id)
    SELECT sp.member_id, 'delete', d.id, d.author_id
      FROM deleted d
      JOIN stream_presence sp ON sp.until > now()
       AND (sp.member_id = d.author_id
            OR sp.member_id IN (SELECT f.follower_id FROM follows f WHERE f.followee_id = d.author_id))
     WHERE d.visibility <> 'private' OR sp.member_id = d.author_id;
    RETURN NULL;
END $$;
