-- Read-your-writes with read replicas (internal/pg/router.go): the primary's WAL insert position
-- after a member's last write, until a time past which every replica still serving reads has
-- replayed it. Unlogged: written on every write request when replicas are configured, read only on
-- the primary, so it needs no WAL and no replica copy; a primary crash empties it (docs/deployment.md).
CREATE UNLOGGED TABLE replica_write_marks (
    member_id bigint PRIMARY KEY,
    lsn       pg_lsn NOT NULL,
    until     timestamptz NOT NULL
);
