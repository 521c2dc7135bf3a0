CREATE TABLE reactions (
    post_id    bigint      NOT NULL,
    member_id  bigint      NOT NULL,
    type       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- One reaction per member and post; the target of INSERT ... ON CONFLICT (post_id, member_id).
    CONSTRAINT reactions_pkey PRIMARY KEY (post_id, member_id),
    CONSTRAINT reactions_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    CONSTRAINT reactions_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT reactions_type_check CHECK (type IN ('like', 'love', 'haha', 'wow', 'sad', 'angry'))
);

CREATE INDEX reactions_member_id_created_at_idx ON reactions (member_id, created_at DESC);
