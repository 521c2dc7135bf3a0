DROP TRIGGER posts_tags_update ON posts;
DROP FUNCTION post_tags_update();
DROP TRIGGER posts_tags_insert ON posts;
DROP FUNCTION post_tags_insert();
DROP TABLE post_tags;
DROP INDEX members_suspended_idx;
