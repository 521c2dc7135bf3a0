DROP INDEX posts_search_keys_idx;
DROP FUNCTION post_search_keys(bigint, tsvector);
DROP FUNCTION post_search_bucket(bigint);
