DROP INDEX members_fanout_on_read_idx;
ALTER TABLE members DROP COLUMN fanout_on_read;
