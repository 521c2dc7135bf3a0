-- The rule reads the suspended members from members again.
DROP TRIGGER suspended_members_update ON members;
DROP TRIGGER suspended_members_insert ON members;
DROP FUNCTION suspended_members_sync();
DROP TABLE suspended_members;
