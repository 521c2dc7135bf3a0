DROP TABLE api_tokens;
DROP TABLE members;
