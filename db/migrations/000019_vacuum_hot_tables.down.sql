ALTER TABLE follows RESET (autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_scale_factor);
ALTER TABLE timeline RESET (autovacuum_vacuum_insert_scale_factor);
ALTER TABLE posts RESET (autovacuum_vacuum_insert_scale_factor);
