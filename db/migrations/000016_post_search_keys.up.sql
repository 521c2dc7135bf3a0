-- Word search reads the newest posts matching all its words one id bucket at a time (issue 8). The
-- GIN index on search_tsv returns every match in the table as one bitmap, whatever id range the
-- query asks for: on this machine about 0.5 µs per match, so a word in 1 % of a million posts cost
-- ~7 ms per look, and a search for the newest 1,000 matches looked several times. This index keys
-- each word of a post by its post's bucket of 16,384 consecutive ids ('61:coffee'), so a look into
-- one bucket costs that bucket's matches only, and a search stops at the bucket that completes its
-- 1,000 matches.

-- post_search_bucket is the bucket of a post id.
CREATE FUNCTION post_search_bucket(id bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id >> 14;

-- post_search_keys keys the lexemes of words by the bucket: the index applies it to a post's words,
-- a search to its own words (array_to_tsvector of its lexemes).
CREATE FUNCTION post_search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT bucket::text || ':' || l FROM unnest(tsvector_to_array(words)) AS l);

-- fastupdate off: a pending list of new entries would be read through on every look, that is once
-- per bucket (a pending list of ~470 entries made a look into an empty bucket 10 times dearer).
CREATE INDEX posts_search_keys_idx ON posts USING gin (post_search_keys(post_search_bucket(id), search_tsv))
    WITH (fastupdate = off);
