-- The follow toggle deletes the 'follow' notification of the pair it undoes
-- (DELETE ... WHERE recipient_id = $1 AND actor_id = $2 AND type = 'follow'); without this index
-- that walked every notification of a popular recipient.
CREATE INDEX notifications_follow_idx ON notifications (recipient_id, actor_id) WHERE type = 'follow';
