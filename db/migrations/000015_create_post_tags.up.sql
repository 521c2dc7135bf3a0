-- Search leaves out the listings of suspended sellers by an anti-join with the few suspended members
-- instead of a member lookup per matching listing.
CREATE INDEX members_suspended_idx ON members (id) WHERE suspended_at IS NOT NULL;

-- Hashtag search reads the newest posts carrying a tag from an index of its own (issue 8): the GIN
-- index on posts.tags returns every post of a tag as an unordered bitmap, so the newest 1,000 of a
-- popular tag cost a heap visit per post. post_tags holds one row per (post, tag), kept by the
-- triggers below from posts.tags (never written by the application); post_tags_tag_idx serves
-- "WHERE tag = $1 ORDER BY post_id DESC" index-only, with what the visibility rule reads included.
CREATE TABLE post_tags (
    post_id    bigint      NOT NULL,
    tag        text        NOT NULL,
    author_id  bigint      NOT NULL,
    visibility text        NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT post_tags_pkey PRIMARY KEY (post_id, tag),
    CONSTRAINT post_tags_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE
);

CREATE INDEX post_tags_tag_idx ON post_tags (tag, post_id DESC) INCLUDE (created_at, author_id, visibility);

-- One set-based insert per statement, so a COPY of a million posts (internal/synth) adds their tags
-- in one pass.
CREATE FUNCTION post_tags_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO post_tags (post_id, tag, author_id, visibility, created_at)
    SELECT n.id, t.tag, n.author_id, n.visibility, n.created_at
      FROM new_posts n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
    ON CONFLICT (post_id, tag) DO NOTHING;
    RETURN NULL;
END $$;

CREATE TRIGGER posts_tags_insert AFTER INSERT ON posts
    REFERENCING NEW TABLE AS new_posts FOR EACH STATEMENT EXECUTE FUNCTION post_tags_insert();

-- Posts are not edited today; should their tags, visibility, author or time change, their rows follow.
CREATE FUNCTION post_tags_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM post_tags WHERE post_id = OLD.id;
    INSERT INTO post_tags (post_id, tag, author_id, visibility, created_at)
    SELECT NEW.id, t.tag, NEW.author_id, NEW.visibility, NEW.created_at
      FROM unnest(NEW.tags) AS t(tag)
    ON CONFLICT (post_id, tag) DO NOTHING;
    RETURN NULL;
END $$;

CREATE TRIGGER posts_tags_update AFTER UPDATE OF tags, visibility, author_id, created_at ON posts
    FOR EACH ROW
    WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.visibility IS DISTINCT FROM NEW.visibility
          OR OLD.author_id IS DISTINCT FROM NEW.author_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION post_tags_update();

INSERT INTO post_tags (post_id, tag, author_id, visibility, created_at)
SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at
  FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
ON CONFLICT (post_id, tag) DO NOTHING;
