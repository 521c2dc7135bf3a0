CREATE TABLE notifications (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    recipient_id    bigint      NOT NULL,
    type            text        NOT NULL,
    actor_id        bigint      NOT NULL,
    post_id         bigint,
    comment_id      bigint,
    conversation_id bigint,
    message_id      bigint,
    reaction        text,
    read_at         timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT notifications_pkey PRIMARY KEY (id),
    CONSTRAINT notifications_recipient_id_fkey FOREIGN KEY (recipient_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT notifications_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES members (id) ON DELETE CASCADE,
    -- A notification disappears with its subject.
    CONSTRAINT notifications_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    -- The comment must be a comment of post_id.
    CONSTRAINT notifications_comment_id_fkey FOREIGN KEY (comment_id, post_id)
        REFERENCES comments (id, post_id) ON DELETE CASCADE,
    CONSTRAINT notifications_conversation_id_fkey FOREIGN KEY (conversation_id)
        REFERENCES conversations (id) ON DELETE CASCADE,
    -- The message must be a message of conversation_id.
    CONSTRAINT notifications_message_id_fkey FOREIGN KEY (message_id, conversation_id)
        REFERENCES messages (id, conversation_id) ON DELETE CASCADE,
    CONSTRAINT notifications_type_check
        CHECK (type IN ('follow', 'reaction', 'comment', 'reply', 'mention', 'message')),
    CONSTRAINT notifications_reaction_check
        CHECK (reaction IN ('like', 'love', 'haha', 'wow', 'sad', 'angry')),
    -- Nobody is notified of their own actions.
    CONSTRAINT notifications_actor_check CHECK (actor_id <> recipient_id),
    -- Which subject columns each type sets.
    CONSTRAINT notifications_follow_subject_check CHECK (type <> 'follow' OR (
        post_id IS NULL AND comment_id IS NULL AND conversation_id IS NULL AND message_id IS NULL
        AND reaction IS NULL)),
    CONSTRAINT notifications_reaction_subject_check CHECK (type <> 'reaction' OR (
        post_id IS NOT NULL AND reaction IS NOT NULL AND comment_id IS NULL AND conversation_id IS NULL
        AND message_id IS NULL)),
    CONSTRAINT notifications_comment_subject_check CHECK (type <> 'comment' OR (
        post_id IS NOT NULL AND comment_id IS NOT NULL AND conversation_id IS NULL AND message_id IS NULL
        AND reaction IS NULL)),
    CONSTRAINT notifications_reply_subject_check CHECK (type <> 'reply' OR (
        post_id IS NOT NULL AND comment_id IS NOT NULL AND conversation_id IS NULL AND message_id IS NULL
        AND reaction IS NULL)),
    CONSTRAINT notifications_mention_subject_check CHECK (type <> 'mention' OR (
        post_id IS NOT NULL AND conversation_id IS NULL AND message_id IS NULL AND reaction IS NULL)),
    CONSTRAINT notifications_message_subject_check CHECK (type <> 'message' OR (
        conversation_id IS NOT NULL AND message_id IS NOT NULL AND post_id IS NULL AND comment_id IS NULL
        AND reaction IS NULL))
);

-- A member's notifications, newest first.
CREATE INDEX notifications_recipient_id_created_at_id_idx ON notifications (recipient_id, created_at DESC, id DESC);
-- Unread badge.
CREATE INDEX notifications_unread_idx ON notifications (recipient_id) WHERE read_at IS NULL;
-- These serve the ON DELETE CASCADE of the subject foreign keys (post delete is a v1 operation).
CREATE INDEX notifications_post_id_idx ON notifications (post_id) WHERE post_id IS NOT NULL;
CREATE INDEX notifications_comment_id_idx ON notifications (comment_id) WHERE comment_id IS NOT NULL;
CREATE INDEX notifications_message_id_idx ON notifications (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX notifications_conversation_id_idx ON notifications (conversation_id) WHERE conversation_id IS NOT NULL;
