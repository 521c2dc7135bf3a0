package synth

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/lib/pq"
)

// loaded lists every table the generator fills. Reference data seeded by the
// migrations (categories) is kept. post_tags is filled by the posts insert
// trigger of migration 15, one set-based insert per COPY; it is listed so
// that its index is built once at the end and it is vacuumed (index-only
// scans need its visibility map); so are member_hides and suspended_members,
// filled by the triggers of blocks, mutes and members (migrations 37, 38).
var loaded = []string{
	"members", "api_tokens", "api_token_uses", "follows", "posts", "post_tags", "post_mentions", "post_media", "polls",
	"poll_options", "poll_votes", "comments", "comment_mentions", "reactions", "conversations", "conversation_participants",
	"messages", "notifications", "listings", "listing_images", "jobs", "blocks", "mutes", "member_hides", "member_suspensions", "suspended_members",
}

// deferred is what prepare dropped so that COPY runs without per-row
// foreign-key checks and secondary-index maintenance; restore builds it
// again, from the database's own definitions, in one pass per table.
type deferred struct {
	indexes []string // CREATE INDEX statements
	fkeys   []string // ALTER TABLE ... ADD CONSTRAINT ... statements
}

// prepare checks that the loaded tables are empty, then drops the foreign
// keys that touch them and their secondary indexes (primary keys and unique
// constraints stay: the data arrives in key order), and truncates them, so
// that COPY ... FREEZE may write frozen, all-visible rows (and, on a
// wal_level=minimal server, skip the WAL).
func prepare(ctx context.Context, conn *sql.Conn) (deferred, error) {
	var d deferred
	for _, t := range loaded {
		var n bool
		if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+pq.QuoteIdentifier(t)+")").Scan(&n); err != nil {
			return d, fmt.Errorf("check %s: %w", t, err)
		}
		if n {
			return d, fmt.Errorf("table %s is not empty: generate loads a freshly migrated, empty database", t)
		}
	}
	const fkq = `
		SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', c.conrelid::regclass, c.conname),
		       format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
		  FROM pg_constraint c
		 WHERE c.contype = 'f'
		   AND (c.conrelid = ANY ($1::regclass[]) OR c.confrelid = ANY ($1::regclass[]))
		 ORDER BY c.conrelid::regclass::text, c.conname`
	drops, err := pairs(ctx, conn, fkq, pq.Array(loaded))
	if err != nil {
		return d, fmt.Errorf("list foreign keys: %w", err)
	}
	const ixq = `
		SELECT format('DROP INDEX %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid)
		  FROM pg_index i
		 WHERE i.indrelid = ANY ($1::regclass[])
		   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
		 ORDER BY i.indrelid::regclass::text, i.indexrelid::regclass::text`
	ixDrops, err := pairs(ctx, conn, ixq, pq.Array(loaded))
	if err != nil {
		return d, fmt.Errorf("list indexes: %w", err)
	}
	for _, p := range drops {
		if _, err := conn.ExecContext(ctx, p[0]); err != nil {
			return d, fmt.Errorf("%s: %w", p[0], err)
		}
		d.fkeys = append(d.fkeys, p[1])
	}
	for _, p := range ixDrops {
		if _, err := conn.ExecContext(ctx, p[0]); err != nil {
			return d, fmt.Errorf("%s: %w", p[0], err)
		}
		d.indexes = append(d.indexes, p[1])
	}
	quoted := make([]string, len(loaded))
	for i, t := range loaded {
		quoted[i] = pq.QuoteIdentifier(t)
	}
	if _, err := conn.ExecContext(ctx, "TRUNCATE "+strings.Join(quoted, ", ")); err != nil {
		return d, fmt.Errorf("truncate: %w", err)
	}
	return d, nil
}

// restore rebuilds the indexes, re-adds (and so validates) the foreign keys
// and moves every identity sequence past the ids the generator used.
func (d deferred) restore(ctx context.Context, conn *sql.Conn, logf func(string, ...any)) error {
	for _, q := range d.indexes {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	logf("rebuilt %d indexes", len(d.indexes))
	for _, q := range d.fkeys {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	logf("re-added and validated %d foreign keys", len(d.fkeys))
	const seqq = `
		SELECT format('SELECT setval(%L, COALESCE((SELECT max(%I) FROM %s), 0) + 1, false)',
		              pg_get_serial_sequence(a.attrelid::regclass::text, a.attname), a.attname, a.attrelid::regclass)
		  FROM pg_attribute a
		 WHERE a.attrelid = ANY ($1::regclass[]) AND a.attidentity <> '' AND NOT a.attisdropped`
	rows, err := conn.QueryContext(ctx, seqq, pq.Array(loaded))
	if err != nil {
		return fmt.Errorf("list identity columns: %w", err)
	}
	var qs []string
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			rows.Close()
			return err
		}
		qs = append(qs, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, q := range qs {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func pairs(ctx context.Context, conn *sql.Conn, q string, args ...any) ([][2]string, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return nil, err
		}
		out = append(out, [2]string{a, b})
	}
	return out, rows.Err()
}
