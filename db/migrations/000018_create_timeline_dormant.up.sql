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
--
-- timeline_rebuild (migration 12) rebuilds every timeline as an active one: whoever calls it
-- empties this table first, as timeline.Rebuild does.
CREATE TABLE timeline_dormant (
    member_id bigint NOT NULL,
    since     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT timeline_dormant_pkey PRIMARY KEY (member_id),
    CONSTRAINT timeline_dormant_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE
);
