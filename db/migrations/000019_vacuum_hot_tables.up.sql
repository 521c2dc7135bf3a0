-- Keep the visibility map of the insert-heavy tables fresh (issue 8). Index-only scans skip the heap
-- only for pages marked all-visible, which only VACUUM does. By default autovacuum runs after
-- inserts of 20 % of a table (autovacuum_vacuum_insert_scale_factor 0.2): 200,000 posts or 800,000
-- timeline rows at the default data set. Until then the newest rows, which every feed reads first,
-- sit on pages that are not all-visible, and each index-only scan fetches their heap tuples.
--
-- After the benchmark's write scenarios, a home page read several times the buffers it reads once
-- posts is vacuumed, most of them heap fetches of the newest posts (docs/performance-journal.md,
-- "Insert-heavy tables vacuumed early").
--
-- At 1 % (plus the default threshold of 1,000 rows) autovacuum visits these tables about once a
-- minute under write load (autovacuum_naptime bounds it); an insert-only vacuum scans only the
-- pages changed since the last one and skips index vacuuming when there is nothing dead, so each
-- run is short. follows is also changed by deletes (unfollows), hence its vacuum scale too.
ALTER TABLE posts SET (autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE timeline SET (autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE follows SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
