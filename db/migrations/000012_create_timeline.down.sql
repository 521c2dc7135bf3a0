DROP FUNCTION timeline_rebuild(integer);
DROP TABLE feed_outbox;
DROP TABLE timeline_horizons;
DROP TABLE timeline;
