ALTER TABLE conversation_participants
    ALTER COLUMN last_activity_at TYPE timestamptz,
    ALTER COLUMN last_activity_at SET DEFAULT now(),
    ALTER COLUMN joined_at TYPE timestamptz,
    ALTER COLUMN joined_at SET DEFAULT now();
ALTER TABLE conversations
    ALTER COLUMN last_message_at TYPE timestamptz,
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE messages
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
