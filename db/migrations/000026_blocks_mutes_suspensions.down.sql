ALTER TABLE members DROP COLUMN block_count;
DROP TABLE member_suspensions;
DROP TABLE mutes;
DROP TABLE blocks;
