-- Threaded comments and their mentions.

CREATE TABLE comments (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    post_id     bigint      NOT NULL,
    author_id   bigint      NOT NULL,
    parent_id   bigint,
    depth       integer     NOT NULL DEFAULT 0,
    body        text        NOT NULL,
    -- Hashtags found in body, as posts.tags.
    tags        text[]      NOT NULL DEFAULT '{}',
    reply_count integer     NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT comments_pkey PRIMARY KEY (id),
    -- Target of the composite foreign keys that pin a parent (or a notification) to the same post.
    CONSTRAINT comments_id_post_id_key UNIQUE (id, post_id),
    CONSTRAINT comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT comments_author_id_fkey FOREIGN KEY (author_id) REFERENCES members (id) ON DELETE CASCADE,
    -- A parent must be a comment of the same post: violation → 422 (bad parent_id).
    CONSTRAINT comments_parent_id_fkey FOREIGN KEY (parent_id, post_id)
        REFERENCES comments (id, post_id) ON DELETE CASCADE,
    CONSTRAINT comments_depth_check CHECK (depth >= 0),
    CONSTRAINT comments_parent_depth_check CHECK ((parent_id IS NULL) = (depth = 0)),
    CONSTRAINT comments_body_check CHECK (char_length(body) BETWEEN 1 AND 2000),
    CONSTRAINT comments_tags_check CHECK (array_position(tags, NULL) IS NULL),
    CONSTRAINT comments_reply_count_check CHECK (reply_count >= 0)
);

-- Comments page of a post, oldest first (keyset on (created_at, id)).
CREATE INDEX comments_post_id_created_at_id_idx ON comments (post_id, created_at, id);
-- Serves the cascade of comments_parent_id_fkey.
CREATE INDEX comments_parent_id_idx ON comments (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE comment_mentions (
    comment_id bigint  NOT NULL,
    member_id  bigint  NOT NULL,
    position   integer NOT NULL,
    CONSTRAINT comment_mentions_pkey PRIMARY KEY (comment_id, member_id),
    CONSTRAINT comment_mentions_comment_id_fkey FOREIGN KEY (comment_id) REFERENCES comments (id) ON DELETE CASCADE,
    CONSTRAINT comment_mentions_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT comment_mentions_position_check CHECK (position >= 0)
);

CREATE INDEX comment_mentions_member_id_idx ON comment_mentions (member_id);
