-- Dormant timelines (issue 8): the fan-out no longer writes to the timelines of members who have
-- not used the service for a while (TIMELINE_DORMANT_AFTER, 14 days by default), as Mastodon and
-- Twitter keep home timelines only for active accounts. Most of a network's members are not
-- active at any one time, and every timeline row a post fans out to is a write.
--
-- A member listed here is dormant: the fan-out skips them, their timeline rows are deleted, and
-- their horizon is 'infinity' (nothing of the timeline is complete), so their reads fall back to
-- fan-out on read. Their next home read wakes them: the row here goes first (from then on the
-- fan-out includes them), then their timeline is rebuilt from posts and the horizon lowered to
-- the oldest rebuilt row (internal/timeline, Wake). A member with an 'infinity' horizon and no row
-- here is waking: written to by the fan-out, read on fan-out until the rebuild is done.
CREATE TABLE timeline_dormant (
    member_id bigint NOT NULL,
    since     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT timeline_dormant_pkey PRIMARY KEY (member_id),
    CONSTRAINT timeline_dormant_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
);

-- The rebuild (socialapi generate, upgrades) starts every member active, as before.
CREATE OR REPLACE FUNCTION timeline_rebuild(cap integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    TRUNCATE timeline, timeline_horizons, feed_outbox, timeline_dormant;
    INSERT INTO timeline (member_id, created_at, post_id, author_id)
    SELECT m.id, x.created_at, x.id, x.author_id
      FROM members m
     CROSS JOIN LATERAL (
          SELECT p.id, p.created_at, p.author_id
            FROM (SELECT f.followee_id AS author_id FROM follows f WHERE f.follower_id = m.id
                  UNION ALL
                  SELECT m.id) a
           CROSS JOIN LATERAL (
                SELECT p.id, p.created_at, p.author_id
                  FROM posts p
                 WHERE p.author_id = a.author_id AND (p.visibility <> 'private' OR p.author_id = m.id)
                 ORDER BY p.created_at DESC, p.id DESC
                 LIMIT cap
           ) p
           ORDER BY p.created_at DESC, p.id DESC
           LIMIT cap
     ) x;
    GET DIAGNOSTICS n = ROW_COUNT;
    INSERT INTO timeline_horizons (member_id, created_at, post_id)
    SELECT DISTINCT ON (t.member_id) t.member_id, t.created_at, t.post_id
      FROM timeline t
     WHERE t.member_id IN (SELECT member_id FROM timeline GROUP BY member_id HAVING count(*) >= cap)
     ORDER BY t.member_id, t.created_at, t.post_id;
    RETURN n;
END
$$;
