-- The fan-out writes about 150 timeline rows per post (issue 8), and each row's foreign key to
-- members cost a check of its own: a lookup and a FOR KEY SHARE lock on the follower's members
-- row, which dirties that row's page. Measured on the benchmark data set (14,540 rows in one
-- statement): 6.7-9.2 µs a row with the key, 3.6-4.8 without, and the fan-out was a tenth of the
-- database time of the realistic mix.
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
