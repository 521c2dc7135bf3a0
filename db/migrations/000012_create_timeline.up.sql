-- Home timelines fanned out on write (internal/timeline/DESIGN.md), kept capped per member.
--
-- timeline holds, for each member, the newest posts of their home feed: their own posts (written
-- with the post) and their followees' public and followers-only posts (written by the fan-out
-- worker from feed_outbox). It is a cache of the ground truth, which is the LATERAL
-- fan-out-on-read query over follows and posts; the read path falls back to that query below a
-- member's horizon, and re-checks visibility on every read.
CREATE TABLE timeline (
    member_id  bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    post_id    bigint      NOT NULL,
    author_id  bigint      NOT NULL,
    -- Scanned backwards for a page; (member_id) prefix for unfollow and trimming.
    CONSTRAINT timeline_pkey PRIMARY KEY (member_id, created_at, post_id),
    CONSTRAINT timeline_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
    -- No foreign key to posts: a cascade would need an index on post_id (tens of MB for nothing);
    -- deleting a post deletes its rows through the author's followers, and reads join posts.
);

-- A member's timeline is complete at and above their horizon (the oldest entry kept when it was
-- last trimmed); no row: complete. Below it, reads use fan-out on read.
CREATE TABLE timeline_horizons (
    member_id  bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    post_id    bigint      NOT NULL,
    CONSTRAINT timeline_horizons_pkey PRIMARY KEY (member_id),
    CONSTRAINT timeline_horizons_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
);

-- Posts not yet fanned out to their author's followers, written in the post's transaction and
-- consumed by the fan-out worker in the transaction that writes the timeline rows, so a post is
-- fanned out exactly once even across a crash. Home reads merge the pending rows of the
-- reader's followees, so the feed never lags the worker.
CREATE TABLE feed_outbox (
    post_id    bigint      NOT NULL,
    author_id  bigint      NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT feed_outbox_pkey PRIMARY KEY (post_id),
    CONSTRAINT feed_outbox_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE
);
CREATE INDEX feed_outbox_author_id_idx ON feed_outbox (author_id);

-- timeline_rebuild(cap) rebuilds every member's timeline from follows and posts: the newest cap
-- entries of each, and a horizon for members who have more. Used here for existing data and by
-- the synthetic data generator (socialapi generate).
CREATE FUNCTION timeline_rebuild(cap integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    TRUNCATE timeline, timeline_horizons, feed_outbox;
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

SELECT timeline_rebuild(400);
