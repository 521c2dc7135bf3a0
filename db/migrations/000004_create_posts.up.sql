-- Posts with their media, mentions and polls.

CREATE TABLE posts (
    id            bigint      GENERATED ALWAYS AS IDENTITY,
    author_id     bigint      NOT NULL,
    type          text        NOT NULL DEFAULT 'text',
    body          text        NOT NULL,
    visibility    text        NOT NULL DEFAULT 'public',
    link          text,
    -- Hashtags found in body: lower case, without '#', in order of first appearance, no duplicates.
    tags          text[]      NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- Denormalised counters, so reads never count rows; fillfactor 90 keeps their updates HOT.
    comment_count integer     NOT NULL DEFAULT 0,
    share_count   integer     NOT NULL DEFAULT 0,
    view_count    bigint      NOT NULL DEFAULT 0,
    like_count    integer     NOT NULL DEFAULT 0,
    love_count    integer     NOT NULL DEFAULT 0,
    haha_count    integer     NOT NULL DEFAULT 0,
    wow_count     integer     NOT NULL DEFAULT 0,
    sad_count     integer     NOT NULL DEFAULT 0,
    angry_count   integer     NOT NULL DEFAULT 0,
    search_tsv    tsvector    GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,
    CONSTRAINT posts_pkey PRIMARY KEY (id),
    CONSTRAINT posts_author_id_fkey FOREIGN KEY (author_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT posts_type_check CHECK (type IN ('text', 'photo', 'video', 'link', 'poll')),
    CONSTRAINT posts_body_check CHECK (char_length(body) BETWEEN 1 AND 5000),
    CONSTRAINT posts_visibility_check CHECK (visibility IN ('public', 'followers', 'private')),
    CONSTRAINT posts_link_check CHECK (char_length(link) BETWEEN 1 AND 2048),
    CONSTRAINT posts_type_link_check CHECK (type <> 'link' OR link IS NOT NULL),
    CONSTRAINT posts_tags_check CHECK (array_position(tags, NULL) IS NULL),
    CONSTRAINT posts_comment_count_check CHECK (comment_count >= 0),
    CONSTRAINT posts_share_count_check CHECK (share_count >= 0),
    CONSTRAINT posts_view_count_check CHECK (view_count >= 0),
    CONSTRAINT posts_like_count_check CHECK (like_count >= 0),
    CONSTRAINT posts_love_count_check CHECK (love_count >= 0),
    CONSTRAINT posts_haha_count_check CHECK (haha_count >= 0),
    CONSTRAINT posts_wow_count_check CHECK (wow_count >= 0),
    CONSTRAINT posts_sad_count_check CHECK (sad_count >= 0),
    CONSTRAINT posts_angry_count_check CHECK (angry_count >= 0)
) WITH (fillfactor = 90);

-- A member's posts, and the LATERAL feed query: index-only thanks to INCLUDE (visibility).
CREATE INDEX posts_author_id_created_at_id_idx ON posts (author_id, created_at DESC, id DESC) INCLUDE (visibility);
-- Discover tab.
CREATE INDEX posts_public_created_at_id_idx ON posts (created_at DESC, id DESC) WHERE visibility = 'public';
-- Post search: search_tsv @@ websearch_to_tsquery('simple', $1).
CREATE INDEX posts_search_tsv_idx ON posts USING gin (search_tsv);
-- Hashtag search: tags @> ARRAY[$1].
CREATE INDEX posts_tags_idx ON posts USING gin (tags);

CREATE TABLE post_mentions (
    post_id   bigint  NOT NULL,
    member_id bigint  NOT NULL,
    -- Order of first appearance in the body, from 0.
    position  integer NOT NULL,
    CONSTRAINT post_mentions_pkey PRIMARY KEY (post_id, member_id),
    CONSTRAINT post_mentions_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT post_mentions_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT post_mentions_position_check CHECK (position >= 0)
);

CREATE INDEX post_mentions_member_id_idx ON post_mentions (member_id);

CREATE TABLE post_media (
    post_id     bigint  NOT NULL,
    position    integer NOT NULL,
    kind        text    NOT NULL,
    url         text    NOT NULL,
    preview_url text,
    width       integer NOT NULL,
    height      integer NOT NULL,
    alt         text,
    CONSTRAINT post_media_pkey PRIMARY KEY (post_id, position),
    CONSTRAINT post_media_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT post_media_position_check CHECK (position >= 0),
    CONSTRAINT post_media_kind_check CHECK (kind IN ('image', 'video', 'gif')),
    CONSTRAINT post_media_url_check CHECK (char_length(url) BETWEEN 1 AND 2048),
    CONSTRAINT post_media_preview_url_check CHECK (char_length(preview_url) BETWEEN 1 AND 2048),
    CONSTRAINT post_media_width_check CHECK (width > 0),
    CONSTRAINT post_media_height_check CHECK (height > 0),
    CONSTRAINT post_media_alt_check CHECK (char_length(alt) <= 1500)
);

CREATE TABLE polls (
    id           bigint      GENERATED ALWAYS AS IDENTITY,
    post_id      bigint      NOT NULL,
    question     text        NOT NULL,
    multiple     boolean     NOT NULL DEFAULT false,
    expires_at   timestamptz,
    -- votes_count: chosen options in total; voters_count: distinct voters.
    votes_count  integer     NOT NULL DEFAULT 0,
    voters_count integer     NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT polls_pkey PRIMARY KEY (id),
    CONSTRAINT polls_post_id_key UNIQUE (post_id),
    CONSTRAINT polls_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT polls_question_check CHECK (char_length(question) BETWEEN 1 AND 300),
    CONSTRAINT polls_votes_count_check CHECK (votes_count >= 0),
    CONSTRAINT polls_voters_count_check CHECK (voters_count >= 0 AND voters_count <= votes_count)
);

CREATE TABLE poll_options (
    poll_id  bigint  NOT NULL,
    -- The option's `index` in the API, from 0.
    position integer NOT NULL,
    title    text    NOT NULL,
    votes    integer NOT NULL DEFAULT 0,
    CONSTRAINT poll_options_pkey PRIMARY KEY (poll_id, position),
    CONSTRAINT poll_options_poll_id_fkey FOREIGN KEY (poll_id) REFERENCES polls (id) ON DELETE CASCADE,
    CONSTRAINT poll_options_position_check CHECK (position >= 0),
    CONSTRAINT poll_options_title_check CHECK (char_length(title) BETWEEN 1 AND 100),
    CONSTRAINT poll_options_votes_check CHECK (votes >= 0)
);

CREATE TABLE poll_votes (
    poll_id    bigint      NOT NULL,
    member_id  bigint      NOT NULL,
    position   integer     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT poll_votes_pkey PRIMARY KEY (poll_id, member_id, position),
    CONSTRAINT poll_votes_option_fkey FOREIGN KEY (poll_id, position)
        REFERENCES poll_options (poll_id, position) ON DELETE CASCADE,
    CONSTRAINT poll_votes_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
);
