-- Members and their API tokens.

CREATE TABLE members (
    id                 bigint      GENERATED ALWAYS AS IDENTITY,
    handle             text        NOT NULL,
    name               text        NOT NULL,
    bio                text,
    avatar_url         text,
    verified           boolean     NOT NULL DEFAULT false,
    default_visibility text        NOT NULL DEFAULT 'public',
    suspended_at       timestamptz,
    -- Denormalised so that profiles never count(*); kept in step by the follow toggle.
    follower_count     integer     NOT NULL DEFAULT 0,
    following_count    integer     NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT members_pkey PRIMARY KEY (id),
    CONSTRAINT members_handle_check CHECK (handle ~ '^[A-Za-z0-9_]{1,30}$'),
    CONSTRAINT members_name_check CHECK (char_length(name) BETWEEN 1 AND 100),
    CONSTRAINT members_bio_check CHECK (char_length(bio) <= 500),
    CONSTRAINT members_avatar_url_check CHECK (char_length(avatar_url) BETWEEN 1 AND 2048),
    CONSTRAINT members_default_visibility_check CHECK (default_visibility IN ('public', 'followers', 'private')),
    CONSTRAINT members_follower_count_check CHECK (follower_count >= 0),
    CONSTRAINT members_following_count_check CHECK (following_count >= 0)
);

-- Handles match case-insensitively: look them up with lower(handle) = lower($1).
CREATE UNIQUE INDEX members_handle_lower_key ON members (lower(handle));

-- People search: queries must use this exact expression to hit the index,
-- e.g. lower(name || ' ' || handle) % lower($1) or ... LIKE '%' || lower($1) || '%'.
CREATE INDEX members_search_trgm_idx ON members USING gin (lower(name || ' ' || handle) gin_trgm_ops);

CREATE TABLE api_tokens (
    id             bigint      GENERATED ALWAYS AS IDENTITY,
    member_id      bigint      NOT NULL,
    name           text        NOT NULL DEFAULT '',
    scope          text        NOT NULL,
    -- sha256 of the whole token value (prefix included); the value itself is never stored.
    token_hash     bytea       NOT NULL,
    -- The first characters of the value (e.g. "snw_AbCd"), for listings only.
    display_prefix text        NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_used_at   timestamptz,
    expires_at     timestamptz,
    revoked_at     timestamptz,
    CONSTRAINT api_tokens_pkey PRIMARY KEY (id),
    CONSTRAINT api_tokens_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash),
    CONSTRAINT api_tokens_name_check CHECK (char_length(name) <= 100),
    CONSTRAINT api_tokens_scope_check CHECK (scope IN ('read', 'write')),
    CONSTRAINT api_tokens_token_hash_check CHECK (octet_length(token_hash) = 32),
    CONSTRAINT api_tokens_display_prefix_check CHECK (char_length(display_prefix) BETWEEN 1 AND 20)
);

-- Token listing per member (the CLI), newest first.
CREATE INDEX api_tokens_member_id_created_at_idx ON api_tokens (member_id, created_at DESC, id DESC);
