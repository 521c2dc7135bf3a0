-- Back to the indexes without the author.
ALTER TABLE timeline DROP CONSTRAINT timeline_pkey,
    ADD CONSTRAINT timeline_pkey PRIMARY KEY (member_id, created_at, post_id);

DROP INDEX posts_public_created_at_id_idx;
CREATE INDEX posts_public_created_at_id_idx ON posts (created_at DESC, id DESC) WHERE visibility = 'public';
