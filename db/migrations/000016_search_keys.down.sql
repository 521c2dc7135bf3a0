DROP INDEX jobs_search_keys_idx;
DROP INDEX listings_search_keys_idx;
DROP INDEX posts_search_keys_idx;
DROP FUNCTION job_search_bucket(bigint);
DROP FUNCTION listing_search_bucket(bigint);
DROP FUNCTION post_search_bucket(bigint);
DROP FUNCTION search_keys(bigint, tsvector);
