-- Back to microsecond columns; the fractions the up migration dropped do not come back.
ALTER TABLE mutes
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE blocks
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE jobs
    ALTER COLUMN posted_at TYPE timestamptz,
    ALTER COLUMN posted_at SET DEFAULT now();
ALTER TABLE listings
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE notifications
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE comments
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
ALTER TABLE timeline_horizons
    ALTER COLUMN created_at TYPE timestamptz;
ALTER TABLE timeline
    ALTER COLUMN created_at TYPE timestamptz;
ALTER TABLE feed_outbox
    ALTER COLUMN created_at TYPE timestamptz;
ALTER TABLE post_tags
    ALTER COLUMN created_at TYPE timestamptz;
-- posts_tags_update names posts.created_at: dropped and made again, as in the up migration.
DROP TRIGGER posts_tags_update ON posts;
ALTER TABLE posts
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
CREATE TRIGGER posts_tags_update AFTER UPDATE OF tags, visibility, author_id, created_at ON posts
    FOR EACH ROW
    WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.visibility IS DISTINCT FROM NEW.visibility
          OR OLD.author_id IS DISTINCT FROM NEW.author_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION post_tags_update();
ALTER TABLE members
    ALTER COLUMN created_at TYPE timestamptz,
    ALTER COLUMN created_at SET DEFAULT now();
