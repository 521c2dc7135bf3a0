-- Conversations, their participants and messages.

CREATE TABLE conversations (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    -- "<min member id>:<max member id>" for a one-to-one conversation, so that it is reused
    -- (INSERT ... ON CONFLICT (direct_key)); NULL for a group.
    direct_key      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_message_at timestamptz,
    last_message_id bigint,
    CONSTRAINT conversations_pkey PRIMARY KEY (id),
    CONSTRAINT conversations_direct_key_key UNIQUE (direct_key),
    CONSTRAINT conversations_direct_key_check CHECK (direct_key ~ '^[0-9]+:[0-9]+$'),
    CONSTRAINT conversations_last_message_check CHECK ((last_message_id IS NULL) OR (last_message_at IS NOT NULL))
);

CREATE TABLE conversation_participants (
    conversation_id      bigint      NOT NULL,
    member_id            bigint      NOT NULL,
    joined_at            timestamptz NOT NULL DEFAULT now(),
    -- Copied from the conversation on every message, so that a member's list is one index scan.
    last_activity_at     timestamptz NOT NULL DEFAULT now(),
    last_read_message_id bigint,
    unread_count         integer     NOT NULL DEFAULT 0,
    CONSTRAINT conversation_participants_pkey PRIMARY KEY (conversation_id, member_id),
    CONSTRAINT conversation_participants_conversation_id_fkey FOREIGN KEY (conversation_id)
        REFERENCES conversations (id) ON DELETE CASCADE,
    CONSTRAINT conversation_participants_member_id_fkey FOREIGN KEY (member_id)
        REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT conversation_participants_unread_count_check CHECK (unread_count >= 0)
);

-- A member's conversations, newest activity first (keyset on (last_activity_at, conversation_id)).
CREATE INDEX conversation_participants_member_id_last_activity_at_idx
    ON conversation_participants (member_id, last_activity_at DESC, conversation_id DESC);

CREATE TABLE messages (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    conversation_id bigint      NOT NULL,
    sender_id       bigint      NOT NULL,
    body            text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT messages_pkey PRIMARY KEY (id),
    -- Target of the composite foreign keys that pin a message to its conversation.
    CONSTRAINT messages_id_conversation_id_key UNIQUE (id, conversation_id),
    CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id)
        REFERENCES conversations (id) ON DELETE CASCADE,
    CONSTRAINT messages_sender_id_fkey FOREIGN KEY (sender_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT messages_body_check CHECK (char_length(body) BETWEEN 1 AND 2000)
);

-- Messages of a conversation, newest first.
CREATE INDEX messages_conversation_id_created_at_id_idx ON messages (conversation_id, created_at DESC, id DESC);

-- The last message must belong to the conversation; deleting it only clears last_message_id.
ALTER TABLE conversations
    ADD CONSTRAINT conversations_last_message_id_fkey FOREIGN KEY (last_message_id, id)
        REFERENCES messages (id, conversation_id) ON DELETE SET NULL (last_message_id);

-- Serves the ON DELETE SET NULL of conversations_last_message_id_fkey.
CREATE INDEX conversations_last_message_id_idx ON conversations (last_message_id) WHERE last_message_id IS NOT NULL;
