CREATE OR REPLACE FUNCTION search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN words = ''::tsvector THEN '{}'::text[]
                ELSE string_to_array(bucket::text || ':' || array_to_string(tsvector_to_array(words), ' ' || bucket::text || ':'), ' ')
           END;
ALTER INDEX posts_search_keys_idx SET (gin_pending_list_limit = 64);
ALTER INDEX listings_search_keys_idx SET (fastupdate = off);
ALTER INDEX jobs_search_keys_idx SET (fastupdate = off);
