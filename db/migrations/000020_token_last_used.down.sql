-- The column comes back at the end of api_tokens (nothing reads it by position).
ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz;
UPDATE api_tokens t SET last_used_at = u.last_used_at FROM api_token_uses u WHERE u.token_id = t.id;
DROP TABLE api_token_uses;
