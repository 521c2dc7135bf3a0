-- Dormant members' timelines are empty and their horizons 'infinity': rebuild them all, as before
-- this migration.
DROP TABLE timeline_dormant;

CREATE OR REPLACE FUNCTION timeline_rebuild(cap integer) RETURNS bigint LANGUAGE plpgsql AS $$
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
