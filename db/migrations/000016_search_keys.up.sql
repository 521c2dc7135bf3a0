-- Word search reads the newest matches of all its words one id bucket at a time (issue 8). A GIN
-- index on search_tsv returns every match in the table as one bitmap, whatever id range the query
-- asks for, so a look costs in proportion to all of a word's matches, and a search for the newest
-- 1,000 matches looked several times; a common word in the listings meant a heap visit and a rank
-- for each of its matches (docs/performance-journal.md, "Search keys by id bucket"). The indexes
-- below key each word of a row by the row's bucket of consecutive ids ('61:coffee'), so a look into
-- one bucket costs that bucket's matches only, and a search stops at the bucket that completes its
-- 1,000.

-- search_keys keys the lexemes of words by a bucket: the indexes apply it to a row's words, a
-- search to its own words (array_to_tsvector of its lexemes).
CREATE FUNCTION search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT bucket::text || ':' || l FROM unnest(tsvector_to_array(words)) AS l);

-- The bucket of a row id, per table: 16,384 posts, 1,024 listings or jobs (a million posts make 62
-- buckets; a look into a bucket without the words is cheap: same journal entry).
CREATE FUNCTION post_search_bucket(id bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id >> 14;
CREATE FUNCTION listing_search_bucket(id bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id >> 10;
CREATE FUNCTION job_search_bucket(id bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN id >> 10;

-- fastupdate off: a pending list of new entries would be read through on every look, that is once
-- per bucket, and makes a look into even an empty bucket many times dearer (same journal entry;
-- migration 24 turns it on again for posts).
CREATE INDEX posts_search_keys_idx ON posts USING gin (search_keys(post_search_bucket(id), search_tsv))
    WITH (fastupdate = off);
CREATE INDEX listings_search_keys_idx ON listings USING gin (search_keys(listing_search_bucket(id), search_tsv))
    WITH (fastupdate = off);
CREATE INDEX jobs_search_keys_idx ON jobs USING gin (search_keys(job_search_bucket(id), search_tsv))
    WITH (fastupdate = off);
