DROP INDEX conversations_last_message_id_idx;
ALTER TABLE conversations DROP CONSTRAINT conversations_last_message_id_fkey;
DROP TABLE messages;
DROP TABLE conversation_participants;
DROP TABLE conversations;
