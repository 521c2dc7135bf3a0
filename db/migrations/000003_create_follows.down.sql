DROP TABLE follows;
