-- Blocks and mutes between members, and the record of operators' suspensions (issue 35).
-- The read rule over them lives in one place: internal/visibility.

-- blocker_id blocks blocked_id: the two are hidden from each other (docs/design.md, "Blocks").
CREATE TABLE blocks (
    blocker_id bigint      NOT NULL,
    blocked_id bigint      NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- Also the probe of "does the viewer block the author".
    CONSTRAINT blocks_pkey PRIMARY KEY (blocker_id, blocked_id),
    CONSTRAINT blocks_blocker_id_fkey FOREIGN KEY (blocker_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT blocks_blocked_id_fkey FOREIGN KEY (blocked_id) REFERENCES members (id) ON DELETE CASCADE,
    -- Translated to 422 cannot_block_self.
    CONSTRAINT blocks_self_check CHECK (blocker_id <> blocked_id)
);
-- The probe of "does the author block the viewer", and the blocker's list (newest first).
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id, blocker_id);
CREATE INDEX blocks_list_idx ON blocks (blocker_id, created_at DESC, blocked_id DESC);

-- muter_id mutes muted_id: muted_id's posts, comments and notifications leave muter_id's streams.
CREATE TABLE mutes (
    muter_id   bigint      NOT NULL,
    muted_id   bigint      NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT mutes_pkey PRIMARY KEY (muter_id, muted_id),
    CONSTRAINT mutes_muter_id_fkey FOREIGN KEY (muter_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT mutes_muted_id_fkey FOREIGN KEY (muted_id) REFERENCES members (id) ON DELETE CASCADE,
    -- Translated to 422 cannot_mute_self.
    CONSTRAINT mutes_self_check CHECK (muter_id <> muted_id)
);
CREATE INDEX mutes_list_idx ON mutes (muter_id, created_at DESC, muted_id DESC);

-- Every suspension an operator decided and its lifting, with the reasons: members.suspended_at
-- says whether a member is suspended now; this table says why and since when, for audits.
CREATE TABLE member_suspensions (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_id        bigint      NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    suspended_at     timestamptz NOT NULL,
    reason           text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
    lifted_at        timestamptz,
    lift_reason      text        CHECK (length(lift_reason) BETWEEN 1 AND 1000),
    CHECK ((lifted_at IS NULL) = (lift_reason IS NULL))
);
-- At most one open suspension per member.
CREATE UNIQUE INDEX member_suspensions_open_idx ON member_suspensions (member_id) WHERE lifted_at IS NULL;

-- How many members this member blocks. A block bumps the blocker's row under the lock both members'
-- follow writes take, so a follow that waited for those locks sees that it raced a block and runs
-- again with a snapshot that holds the block (internal/follows, "fresh").
ALTER TABLE members ADD COLUMN block_count integer NOT NULL DEFAULT 0 CHECK (block_count >= 0);
