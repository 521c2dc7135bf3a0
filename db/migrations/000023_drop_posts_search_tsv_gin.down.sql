CREATE INDEX posts_search_tsv_idx ON posts USING gin (search_tsv);
