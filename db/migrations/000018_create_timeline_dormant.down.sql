-- Dormant members' timelines are empty and their horizons 'infinity': rebuild every timeline, as
-- before this migration.
DROP TABLE timeline_dormant;
SELECT timeline_rebuild(400);
