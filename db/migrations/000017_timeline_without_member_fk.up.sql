-- The fan-out writes a timeline row per follower of each post (issue 8), and each row's foreign key
-- to members cost a check of its own: a lookup and a FOR KEY SHARE lock on the follower's members
-- row, which dirties that row's page. The check about doubled the cost of a row, in the statement
-- that writes the most rows (docs/performance-journal.md, "Timeline without the member key").
--
-- Members are never deleted by the API; the key's one duty was ON DELETE CASCADE. A statement
-- trigger keeps that duty: deleting members deletes their timelines (their horizons keep a key of
-- their own; horizons are written once per trim, not per post). A fan-out that
-- commits while a member is being deleted can leave that member's rows behind; nothing reads them
-- (every timeline read is keyed by an existing, authenticated member, and member ids are never
-- reused), and the fan-out of later posts cannot add more, since the member's follows are gone.
ALTER TABLE timeline DROP CONSTRAINT timeline_member_id_fkey;

CREATE FUNCTION timeline_forget_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM timeline t USING gone g WHERE t.member_id = g.id;
    RETURN NULL;
END $$;

CREATE TRIGGER members_forget_timelines AFTER DELETE ON members
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION timeline_forget_members();
