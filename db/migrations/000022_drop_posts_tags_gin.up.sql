-- posts_tags_idx (a GIN index on posts.tags) has served no query since migration 15 moved hashtag
-- search to post_tags and post_tags_tag_idx; the benchmark's statistics show it never scanned
-- (idx_scan 0 after every scenario). Every insert into posts still paid for it: a GIN entry per
-- tag, and one for an empty array, since GIN indexes empty items too. The post_tags triggers keep
-- the tags searchable.
DROP INDEX posts_tags_idx;
