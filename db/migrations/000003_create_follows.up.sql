CREATE TABLE follows (
    follower_id bigint      NOT NULL,
    followee_id bigint      NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- Also the last line of defence of the follow toggle against concurrent duplicates.
    CONSTRAINT follows_pkey PRIMARY KEY (follower_id, followee_id),
    CONSTRAINT follows_follower_id_fkey FOREIGN KEY (follower_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT follows_followee_id_fkey FOREIGN KEY (followee_id) REFERENCES members (id) ON DELETE CASCADE,
    -- Translated to 422 cannot_follow_self.
    CONSTRAINT follows_self_check CHECK (follower_id <> followee_id)
);

-- Followers of a member (fan-out, followers list, visibility check "is $me a follower of $author").
CREATE INDEX follows_followee_id_follower_id_idx ON follows (followee_id, follower_id);
