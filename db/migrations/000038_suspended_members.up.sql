-- suspended_members: the members suspended now (members.suspended_at set), kept by the triggers
-- below in the suspending transaction. The visibility rule reads the suspended members once per
-- statement; from members they were a heap fetch each, since the counter updates of members keep
-- its pages from being all-visible, while this table is a page rarely written (docs/design.md,
-- "Blocks, mutes and suspension"). `socialapi check` compares it with members.
CREATE TABLE suspended_members (
    member_id bigint PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE
);

CREATE FUNCTION suspended_members_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.suspended_at IS NULL THEN
        DELETE FROM suspended_members WHERE member_id = NEW.id;
    ELSE
        INSERT INTO suspended_members (member_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

-- Only a change of suspended_at fires them: the counter updates of members do not.
CREATE TRIGGER suspended_members_insert AFTER INSERT ON members
    FOR EACH ROW WHEN (NEW.suspended_at IS NOT NULL) EXECUTE FUNCTION suspended_members_sync();
CREATE TRIGGER suspended_members_update AFTER UPDATE OF suspended_at ON members
    FOR EACH ROW WHEN (OLD.suspended_at IS DISTINCT FROM NEW.suspended_at) EXECUTE FUNCTION suspended_members_sync();

INSERT INTO suspended_members (member_id) SELECT id FROM members WHERE suspended_at IS NOT NULL;

-- Nothing reads the suspended members through members any more.
DROP INDEX members_suspended_idx;
