-- Back to migration 000032's form: events inserted into stream_events and numbered there at
-- commit. Staged rows belong to transactions in flight only, so none is carried over.
DROP TRIGGER stream_pending_number ON stream_pending;
DROP TABLE stream_pending;
ALTER TABLE stream_events ALTER COLUMN seq DROP NOT NULL,
    ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY,
    ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE stream_events ADD CONSTRAINT stream_events_pkey PRIMARY KEY (id);
CREATE INDEX stream_events_unnumbered_idx ON stream_events (xact) WHERE seq IS NULL;

CREATE OR REPLACE FUNCTION stream_number() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION stream_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id)
    SELECT n.recipient_id, 'notification', n.id
      FROM created n JOIN stream_presence sp ON sp.member_id = n.recipient_id AND sp.until > now()
     ORDER BY n.id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id, ref2_id)
    SELECT cp.member_id, 'message', m.id, m.conversation_id
      FROM created m
      JOIN conversation_participants cp ON cp.conversation_id = m.conversation_id AND cp.member_id <> m.sender_id
      JOIN stream_presence sp ON sp.member_id = cp.member_id AND sp.until > now()
     ORDER BY m.id, cp.member_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_unread() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id)
    SELECT n.member_id, 'conversation', n.conversation_id
      FROM after_rows n
      JOIN before_rows o ON o.conversation_id = n.conversation_id AND o.member_id = n.member_id
      JOIN stream_presence sp ON sp.member_id = n.member_id AND sp.until > now()
     WHERE n.unread_count <> o.unread_count;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_timeline() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stream_events (member_id, kind, ref_id, ref2_id)
    SELECT t.member_id, 'post', t.post_id, t.author_id
      FROM created t JOIN stream_presence sp ON sp.member_id = t.member_id AND sp.until > now()
     WHERE t.created_at > now() - interval '1 day'
     ORDER BY t.created_at, t.post_id;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stream_deleted_posts() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE CONSTRAINT TRIGGER stream_events_number AFTER INSERT ON stream_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stream_number();
