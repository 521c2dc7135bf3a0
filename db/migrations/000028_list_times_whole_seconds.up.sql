-- Every list is ordered by a time, then id, and shows that time in whole seconds (the API's
-- timestamps): the sort times of every list are stored in whole seconds, as 000027 did for
-- conversations and messages, so that two items within one second list in id order, the order a
-- client can check from what it reads. The columns: posts and their copies (post_tags, feed_outbox,
-- timeline, timeline_horizons), comments, notifications, listings, jobs, blocks, mutes, and members
-- (people search sorts by the member's creation). Writers truncate (a time is never shown later
-- than it happened); the column type rounds anything written otherwise, so every row holds what
-- the API shows. A copy is truncated as its original, so the two still compare equal.
--
-- Changing a column's type rewrites its table and rebuilds its indexes under an ACCESS EXCLUSIVE
-- lock, in time proportional to the table (timeline is the largest), while requests that touch
-- it wait: run it in a maintenance window. One ALTER TABLE per table, so each is rewritten once.
ALTER TABLE members
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
-- The trigger that keeps post_tags in step names posts.created_at, which a column's type
-- cannot change under: it is dropped and made again as 000015 made it.
DROP TRIGGER posts_tags_update ON posts;
ALTER TABLE posts
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
CREATE TRIGGER posts_tags_update AFTER UPDATE OF tags, visibility, author_id, created_at ON posts
    FOR EACH ROW
    WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.visibility IS DISTINCT FROM NEW.visibility
          OR OLD.author_id IS DISTINCT FROM NEW.author_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION post_tags_update();
ALTER TABLE post_tags
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at);
ALTER TABLE feed_outbox
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at);
ALTER TABLE timeline
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at);
-- A dormant member's horizon is 'infinity', which truncates to itself.
ALTER TABLE timeline_horizons
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at);
ALTER TABLE comments
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
ALTER TABLE notifications
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
ALTER TABLE listings
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
ALTER TABLE jobs
    ALTER COLUMN posted_at TYPE timestamptz(0) USING date_trunc('second', posted_at),
    ALTER COLUMN posted_at SET DEFAULT date_trunc('second', now());
ALTER TABLE blocks
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
ALTER TABLE mutes
    ALTER COLUMN created_at TYPE timestamptz(0) USING date_trunc('second', created_at),
    ALTER COLUMN created_at SET DEFAULT date_trunc('second', now());
