-- posts_search_tsv_idx (a GIN index on posts.search_tsv, fastupdate on) serves no query since post
-- search looks every text up in posts_search_keys_idx (migration 16): a text whose matches all
-- carry some lexemes walks it by those (@>), a text with "or" by the lexemes one of which each match
-- carries (&&), and a text that may match a post without any of its words ("-tea") has no index to
-- use and reads the newest posts by the primary key. Every insert into posts still paid for it,
-- about 40-50 µs a post on the benchmark's data set (3,000 inserts: 474-488 ms with it, 330-386 ms
-- without), in the create-post path that fans out to followers. Listings and jobs keep theirs: their
-- lists filter by text (market, jobs) through them.
DROP INDEX posts_search_tsv_idx;
