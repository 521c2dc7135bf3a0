CREATE OR REPLACE FUNCTION search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT bucket::text || ':' || l FROM unnest(tsvector_to_array(words)) AS l);
