DROP TABLE comment_mentions;
DROP TABLE comments;
