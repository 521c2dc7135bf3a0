DROP TABLE IF EXISTS replica_write_marks;
