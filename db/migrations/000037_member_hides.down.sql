-- The rule reads blocks and mutes directly again.
DROP TRIGGER member_hides_mutes ON mutes;
DROP TRIGGER member_hides_blocks ON blocks;
DROP FUNCTION member_hides_mutes();
DROP FUNCTION member_hides_blocks();
DROP TABLE member_hides;
