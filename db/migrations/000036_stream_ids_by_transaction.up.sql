-- Event ids by transaction (docs/design.md, "Event stream"). An event's id is its transaction's id
-- × 1024 plus its rank among the transaction's events of the member, given when the cause's trigger
-- writes the row. A stream delivers only the events of transactions below the xmin of its read's
-- snapshot: every transaction with a smaller id has ended, so no event with a smaller id can still
-- appear, and a member's delivered ids only increase. Before, ids were given at commit under a lock
-- of the members' presence rows (stream_number): commits that concerned the same member queued
-- there, and every event was staged, moved and counted.
DROP TRIGGER stream_pending_number ON stream_pending;
DROP TABLE stream_pending;
DROP FUNCTION stream_number();

-- since_seq is now the delivery horizon when the presence began: an id below it may have missed
-- events. Ids given before are far below every id given from now on; they resume no more.
ALTER TABLE stream_presence DROP COLUMN last_seq;
UPDATE stream_presence SET since_seq = pg_current_xact_id()::text::bigint * 1024;

-- Pruning goes by id: the instances delete the ids below a horizon taken a resume window ago, so a
-- kept id has every later one of its member kept too (ids, unlike insertion times, are the order
-- of delivery).
DROP INDEX stream_events_created_at_idx;
ALTER TABLE stream_events DROP COLUMN created_at;
CREATE INDEX stream_events_seq_idx ON stream_events (seq);

-- stream_base is the id before the first one the calling statement may give: its transaction's id
-- × 1024 plus the ranks earlier statements of the transaction used (socialapi.stream_n, local to
-- the transaction, so a rolled-back savepoint gives its ranks back with its rows).
CREATE FUNCTION stream_base() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT pg_current_xact_id()::text::bigint * 1024
         + COALESCE(NULLIF(current_setting('socialapi.stream_n', true), ''), '0')::bigint
$$;

-- stream_ref is one event to write: its member and the ids it is about.
CREATE TYPE stream_ref AS (member_id bigint, ref_id bigint, ref2_id bigint);

-- stream_put writes events of kind p_kind, one for each element of evs, in the order given, with
-- their ids: each member's events take the next ranks of the statement, beginning after those
-- earlier statements of the transaction used (stream_base). It records the largest rank it used
-- and notifies channel 'stream' with the members' ids, delivered at commit (comma-separated, in
-- chunks that keep each payload far below NOTIFY's 8000 bytes; equal payloads of one transaction
-- are delivered once). A transaction gives one member at most 1023 events: every writer stays far
-- below (a timeline statement writes at most timeline.Cap rows for a member), and one that would
-- give more fails rather than take an id of the next transaction's range. The causes' triggers
-- call it once a statement, with one array aggregated in their cause's order (null when there is
-- nothing to write).
CREATE FUNCTION stream_put(p_kind text, evs stream_ref[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    base bigint;
    used bigint;
    ms bigint[];
    chunk text;
BEGIN
    IF evs IS NULL THEN
        RETURN;
    END IF;
    base := stream_base();
    WITH ev AS (
        SELECT u.member_id, u.ref_id, u.ref2_id, row_number() OVER (PARTITION BY u.member_id ORDER BY u.i) AS r
          FROM unnest(evs) WITH ORDINALITY AS u(member_id, ref_id, ref2_id, i)
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id, ref2_id)
        SELECT ev.member_id, base + ev.r, p_kind, ev.ref_id, ev.ref2_id FROM ev WHERE base % 1024 + ev.r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    IF base % 1024 + used > 1023 THEN
        RAISE EXCEPTION 'stream: more than 1023 events for one member in one transaction'
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    PERFORM set_config('socialapi.stream_n', (base % 1024 + used)::text, true);
    FOR chunk IN
        SELECT string_agg(m::text, ',') FROM unnest(ms) WITH ORDINALITY AS u(m, i) GROUP BY (i - 1) / 400
    LOOP
        PERFORM pg_notify('stream', chunk);
    END LOOP;
END $$;

-- The causes' triggers hand their events to stream_put, for the members with presence (one probe
-- of stream_presence's key per member), in the order of their cause.
CREATE OR REPLACE FUNCTION stream_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stream_put('notification', array_agg((n.recipient_id, n.id, NULL)::stream_ref ORDER BY n.id))
       FROM created n JOIN stream_presence sp ON sp.member_id = n.recipient_id AND sp.until > now();
    RETURN NULL;
END $$;

-- A message goes to every participant but its sender.
CREATE OR REPLACE FUNCTION stream_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stream_put('message', array_agg((cp.member_id, m.id, m.conversation_id)::stream_ref ORDER BY m.id, cp.member_id))
       FROM created m
       JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id AND cp.member_id <> m.sender_id
       JOIN stream_presence sp ON sp.member_id = cp.member_id AND sp.until > now();
    RETURN NULL;
END $$;

-- A participant's unread count changed (a message received, the conversation marked read).
CREATE OR REPLACE FUNCTION stream_unread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stream_put('conversation', array_agg((n.member_id, n.conversation_id, NULL)::stream_ref ORDER BY n.conversation_id))
       FROM after_rows n
       JOIN before_rows o ON o.conversation_id = n.conversation_id AND o.member_id = n.member_id
       JOIN stream_presence sp ON sp.member_id = n.member_id AND sp.until > now()
      WHERE n.unread_count <> o.unread_count;
    RETURN NULL;
END $$;

-- A post enters a home timeline (rows of posts older than a day are not announced: migration
-- 000032).
CREATE OR REPLACE FUNCTION stream_timeline() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stream_put('post', array_agg((t.member_id, t.post_id, t.author_id)::stream_ref ORDER BY t.created_at, t.post_id))
       FROM created t JOIN stream_presence sp ON sp.member_id = t.member_id AND sp.until > now()
      WHERE t.created_at > now() - interval '1 day';
    RETURN NULL;
END $$;

-- A deleted post leaves the timelines of its author and of the author's followers.
CREATE OR REPLACE FUNCTION stream_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stream_put('delete', array_agg((sp.member_id, d.id, d.author_id)::stream_ref ORDER BY d.id))
       FROM deleted d
       JOIN stream_presence sp ON sp.until > now()
        AND (sp.member_id = d.author_id
             OR sp.member_id IN (SELECT f.follower_id FROM follows f WHERE f.followee_id = d.author_id))
      WHERE d.visibility <> 'private' OR sp.member_id = d.author_id;
    RETURN NULL;
END $$;
