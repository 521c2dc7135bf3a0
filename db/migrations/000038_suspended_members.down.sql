-- The rule reads the suspended members from members again.
CREATE INDEX members_suspended_idx ON members (id) WHERE suspended_at IS NOT NULL;
DROP TRIGGER suspended_members_update ON members;
DROP TRIGGER suspended_members_insert ON members;
DROP FUNCTION suspended_members_sync();
DROP TABLE suspended_members;
