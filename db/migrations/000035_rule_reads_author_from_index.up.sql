-- The visibility rule reads the author of every row a home or discover page walks
-- (docs/design.md, "Blocks, mutes and suspension"): with the author only in the heap, each of
-- those rows cost a heap fetch, and the scans that were index-only before the rule were not any
-- more. Both indexes now carry the author, so the pages are index-only scans again.
ALTER TABLE timeline DROP CONSTRAINT timeline_pkey,
    ADD CONSTRAINT timeline_pkey PRIMARY KEY (member_id, created_at, post_id) INCLUDE (author_id);

DROP INDEX posts_public_created_at_id_idx;
CREATE INDEX posts_public_created_at_id_idx ON posts (created_at DESC, id DESC) INCLUDE (author_id)
    WHERE visibility = 'public';
