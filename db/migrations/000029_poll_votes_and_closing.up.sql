-- Polls members create and vote in, and the `poll` notification of a closed poll (issue 38).

-- When the poll's close was announced: its `poll` notifications were written (to the author and
-- the voters who may still see the post), in the transaction that set this. NULL: not yet (or the
-- poll never closes). The closer (internal/polls) takes the polls whose expires_at has passed and
-- this is NULL, FOR UPDATE SKIP LOCKED, so each close is announced once across instances.
ALTER TABLE polls ADD COLUMN closed_notified_at timestamptz;
-- Polls that closed before closes were announced are not announced now, months late.
UPDATE polls SET closed_notified_at = expires_at WHERE expires_at <= now();
-- The closer's look for polls due: only those not yet announced, by expiry.
CREATE INDEX polls_close_due_idx ON polls (expires_at) WHERE closed_notified_at IS NULL AND expires_at IS NOT NULL;

ALTER TABLE notifications
    DROP CONSTRAINT notifications_type_check,
    ADD CONSTRAINT notifications_type_check
        CHECK (type IN ('follow', 'reaction', 'comment', 'reply', 'mention', 'message', 'poll')),
    -- A poll's author is told of its close as its voters are; the actor is the author.
    DROP CONSTRAINT notifications_actor_check,
    ADD CONSTRAINT notifications_actor_check CHECK (actor_id <> recipient_id OR type = 'poll'),
    ADD CONSTRAINT notifications_poll_subject_check CHECK (type <> 'poll' OR (
        post_id IS NOT NULL AND comment_id IS NULL AND conversation_id IS NULL AND message_id IS NULL
        AND reaction IS NULL));
