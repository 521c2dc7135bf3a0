DROP TABLE reactions;
