DELETE FROM notifications WHERE type = 'poll';
ALTER TABLE notifications
    DROP CONSTRAINT notifications_poll_subject_check,
    DROP CONSTRAINT notifications_actor_check,
    ADD CONSTRAINT notifications_actor_check CHECK (actor_id <> recipient_id),
    DROP CONSTRAINT notifications_type_check,
    ADD CONSTRAINT notifications_type_check
        CHECK (type IN ('follow', 'reaction', 'comment', 'reply', 'mention', 'message'));
DROP INDEX polls_close_due_idx;
ALTER TABLE polls DROP COLUMN closed_notified_at;
