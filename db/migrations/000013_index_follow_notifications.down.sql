DROP INDEX notifications_follow_idx;
