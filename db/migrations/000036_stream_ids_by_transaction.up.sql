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

-- stream_advance records that the statement that began at base used ranks up to base + used (the
-- largest count of its events for one member) and notifies channel 'stream' with the members'
-- ids, delivered at commit (comma-separated, in chunks that keep each payload far below NOTIFY's
-- 8000 bytes; equal payloads of one transaction are delivered once). A transaction gives one
-- member at most 1023 events: every writer stays far below (a timeline statement writes at most
-- timeline.Cap rows for a member), and one that did not fails rather than give an id of the next
-- transaction's range.
CREATE FUNCTION stream_advance(base bigint, used bigint, members bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    chunk text;
BEGIN
    IF used IS NULL THEN
        RETURN;
    END IF;
    IF base % 1024 + used > 1023 THEN
        RAISE EXCEPTION 'stream: more than 1023 events for one member in one transaction'
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    PERFORM set_config('socialapi.stream_n', (base % 1024 + used)::text, true);
    FOR chunk IN
        SELECT string_agg(m::text, ',') FROM unnest(members) WITH ORDINALITY AS u(m, i) GROUP BY (i - 1) / 400
    LOOP
        PERFORM pg_notify('stream', chunk);
    END LOOP;
END $$;

-- The causes' triggers write their events into stream_events with their ids, for the members with
-- presence (one probe of stream_presence's key per member). Each ranks its events per member in
-- the order of their cause (r), writes those within the transaction's range and hands the largest
-- rank to stream_advance, which fails the transaction if any was beyond it.
CREATE OR REPLACE FUNCTION stream_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    base bigint := stream_base();
    used bigint;
    ms bigint[];
BEGIN
    WITH ev AS (
        SELECT n.recipient_id AS member_id, n.id AS ref_id,
               row_number() OVER (PARTITION BY n.recipient_id ORDER BY n.id) AS r
          FROM created n JOIN stream_presence sp ON sp.member_id = n.recipient_id AND sp.until > now()
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id)
        SELECT member_id, base + r, 'notification', ref_id FROM ev WHERE base % 1024 + r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    PERFORM stream_advance(base, used, ms);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_messages() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    base bigint := stream_base();
    used bigint;
    ms bigint[];
BEGIN
    WITH ev AS (
        SELECT cp.member_id, m.id AS ref_id, m.conversation_id AS ref2_id,
               row_number() OVER (PARTITION BY cp.member_id ORDER BY m.id) AS r
          FROM created m
          JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id AND cp.member_id <> m.sender_id
          JOIN stream_presence sp ON sp.member_id = cp.member_id AND sp.until > now()
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id, ref2_id)
        SELECT member_id, base + r, 'message', ref_id, ref2_id FROM ev WHERE base % 1024 + r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    PERFORM stream_advance(base, used, ms);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_unread() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    base bigint := stream_base();
    used bigint;
    ms bigint[];
BEGIN
    WITH ev AS (
        SELECT n.member_id, n.conversation_id AS ref_id,
               row_number() OVER (PARTITION BY n.member_id ORDER BY n.conversation_id) AS r
          FROM after_rows n
          JOIN before_rows o ON o.conversation_id = n.conversation_id AND o.member_id = n.member_id
          JOIN stream_presence sp ON sp.member_id = n.member_id AND sp.until > now()
         WHERE n.unread_count <> o.unread_count
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id)
        SELECT member_id, base + r, 'conversation', ref_id FROM ev WHERE base % 1024 + r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    PERFORM stream_advance(base, used, ms);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_timeline() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    base bigint := stream_base();
    used bigint;
    ms bigint[];
BEGIN
    WITH ev AS (
        SELECT t.member_id, t.post_id AS ref_id, t.author_id AS ref2_id,
               row_number() OVER (PARTITION BY t.member_id ORDER BY t.created_at, t.post_id) AS r
          FROM created t JOIN stream_presence sp ON sp.member_id = t.member_id AND sp.until > now()
         WHERE t.created_at > now() - interval '1 day'
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id, ref2_id)
        SELECT member_id, base + r, 'post', ref_id, ref2_id FROM ev WHERE base % 1024 + r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    PERFORM stream_advance(base, used, ms);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    base bigint := stream_base();
    used bigint;
    ms bigint[];
BEGIN
    WITH ev AS (
        SELECT sp.member_id, d.id AS ref_id, d.author_id AS ref2_id,
               row_number() OVER (PARTITION BY sp.member_id ORDER BY d.id) AS r
          FROM deleted d
          JOIN stream_presence sp ON sp.until > now()
           AND (sp.member_id = d.author_id
                OR sp.member_id IN (SELECT f.follower_id FROM follows f WHERE f.followee_id = d.author_id))
         WHERE d.visibility <> 'private' OR sp.member_id = d.author_id
    ), ins AS (
        INSERT INTO stream_events (member_id, seq, kind, ref_id, ref2_id)
        SELECT member_id, base + r, 'delete', ref_id, ref2_id FROM ev WHERE base % 1024 + r < 1024
        RETURNING member_id
    )
    SELECT (SELECT max(r) FROM ev), (SELECT array_agg(DISTINCT member_id) FROM ins) INTO used, ms;
    PERFORM stream_advance(base, used, ms);
    RETURN NULL;
END $$;
