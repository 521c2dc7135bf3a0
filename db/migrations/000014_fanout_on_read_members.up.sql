-- Members with many followers are not fanned out on write (the "celebrity"
-- hybrid of internal/timeline/DESIGN.md): once a member reaches 5,000 followers their new posts skip feed_outbox and
-- home reads merge them from posts, by a LATERAL per such followee. The flag never goes back, so a
-- post is always found by one of the two paths (reads drop the duplicates of posts fanned out
-- before the flag was set).
ALTER TABLE members ADD COLUMN fanout_on_read boolean NOT NULL DEFAULT false;
CREATE INDEX members_fanout_on_read_idx ON members (id) WHERE fanout_on_read;
UPDATE members SET fanout_on_read = true WHERE follower_count >= 5000;
