-- A token's last use moves out of api_tokens into a table of its own. Every hot statement reads
-- api_tokens: Authenticate, and the token check that recalled requests carry inside their own
-- statement (auth.GuardSQL). The server also rewrites last_used_at of the tokens in use, each at
-- most every 5 minutes, a steady churn for a service's many tokens. That churn made autovacuum and
-- autoanalyze visit api_tokens often (docs/performance-journal.md, "Token last use in its own
-- table"), and each visit invalidates the cached plan of every statement that reads the table, so
-- every connection planned all of its hot statements again at once. Here the writes go to
-- api_token_uses, which only Authenticate, the token listing and the dormant-member check read: its
-- vacuum re-plans those alone, and api_tokens changes only when a token is created, revoked or
-- deleted.
--
-- A token never used has no row. fillfactor 70 leaves room on each page for the next version of
-- its rows: nothing indexes last_used_at, so an update that fits on its page is HOT (no index
-- entries, and the old version is pruned without waiting for a vacuum).
CREATE TABLE api_token_uses (
    token_id     bigint      NOT NULL,
    last_used_at timestamptz NOT NULL,
    CONSTRAINT api_token_uses_pkey PRIMARY KEY (token_id),
    CONSTRAINT api_token_uses_token_id_fkey FOREIGN KEY (token_id) REFERENCES api_tokens (id) ON DELETE CASCADE
) WITH (fillfactor = 70);

INSERT INTO api_token_uses (token_id, last_used_at)
SELECT id, last_used_at FROM api_tokens WHERE last_used_at IS NOT NULL ORDER BY id;

ALTER TABLE api_tokens DROP COLUMN last_used_at;
