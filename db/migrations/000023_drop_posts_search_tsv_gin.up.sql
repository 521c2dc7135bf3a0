-- posts_search_tsv_idx (a GIN index on posts.search_tsv, fastupdate on) serves no query since post
-- search looks every text up in posts_search_keys_idx (migration 16): a text whose matches all
-- carry some lexemes walks it by those (@>), a text with "or" by the lexemes one of which each match
-- carries (&&), and a text that may match a post without any of its words ("-tea") has no index to
-- use and reads the newest posts by the primary key. Every insert into posts still paid for it, in
-- the create-post path that fans out to followers (docs/performance-journal.md,
-- "posts_search_tsv_idx dropped"). Listings and jobs keep theirs: their lists filter by text
-- (market, jobs) through them.
DROP INDEX posts_search_tsv_idx;
