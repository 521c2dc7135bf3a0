DROP TABLE poll_votes;
DROP TABLE poll_options;
DROP TABLE polls;
DROP TABLE post_media;
DROP TABLE post_mentions;
DROP TABLE posts;
