-- Conversations and messages are listed by (time, id) and shown with whole seconds (the API's
-- timestamps): their sort times are stored in whole seconds, so that two conversations active,
-- or two messages sent, within one second are in id order, as a client reading the list sees
-- them. Writers truncate (a time is never shown later than it happened); the column type rounds
-- anything written otherwise, so every row holds what the API shows.
ALTER TABLE messages
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
ALTER TABLE conversations
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now()),
    ALTER COLUMN last_message_at TYPE timestamptz(0) USING date_trunc('second', last_message_at);
ALTER TABLE conversation_participants
    ALTER COLUMN joined_at TYPE timestamptz(0) USING date_trunc('second', joined_at),
    ALTER COLUMN joined_at SET DEFAULT date_trunc('second', now()),
    ALTER COLUMN last_activity_at TYPE timestamptz(0) USING date_trunc('second', last_activity_at),
    ALTER COLUMN last_activity_at SET DEFAULT date_trunc('second', now());
