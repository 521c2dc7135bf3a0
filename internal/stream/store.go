package stream

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Row is one durable event of a member (stream_events): what happened and
// the ids it is about; the payload is rendered from them when it is sent.
type Row struct {
	Seq  int64  `db:"seq"`
	Kind string `db:"kind"`
	Ref  int64  `db:"ref_id"`
	Ref2 *int64 `db:"ref2_id"`
	// Settled is whether every transaction that could still give the
	// member a smaller id has ended (seq below the read's horizon): only
	// settled rows are sent.
	Settled bool `db:"settled"`
	// post is a post event's post, when the member may see it (store.read).
	post *postRow
}

// store reads and writes the stream's tables (migrations 000032, 000034,
// 000036). Its reads run as prepared statements (prep): a stream's
// wake-ups repeat them by the thousand, and unnamed statements were
// planned every time (the rendering of post events planned longer than it
// ran).
type store struct {
	db   *sqlx.DB
	prep *pg.Prepared
}

func newStore(db *sqlx.DB) *store { return &store{db: db, prep: pg.NewPrepared(db)} }

// horizonSQL is the delivery horizon of the statement's snapshot: event
// ids below it belong to transactions that have all ended (an id is its
// transaction's id × 1024 plus a rank: migration 000036), so no smaller id
// can appear later.
const horizonSQL = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 1024`

// openSQL begins or extends the presence of $1 until now() + $2 seconds:
// a presence that lapsed begins again at the current horizon (an id below
// it may have missed events). It returns the presence's beginning
// (since_seq), the horizon, and whether the event $3 of the member is kept.
const openSQL = `
	WITH h AS (SELECT ` + horizonSQL + ` AS horizon),
	p AS (
	    INSERT INTO stream_presence AS sp (member_id, until, since_seq)
	    SELECT $1, now() + make_interval(secs => $2), h.horizon FROM h
	    ON CONFLICT (member_id) DO UPDATE
	       SET since_seq = CASE WHEN sp.until > now() THEN sp.since_seq ELSE excluded.since_seq END,
	           until = GREATEST(sp.until, excluded.until)
	    RETURNING since_seq
	)
	SELECT p.since_seq, h.horizon,
	       EXISTS (SELECT 1 FROM stream_events e WHERE e.member_id = $1 AND e.seq = $3) AS kept
	  FROM p, h`

// open records the presence of memberID for window and returns the event
// id to deliver after: after, when the stream resumes there exactly, or
// just below the current horizon and resumable false (the client
// refetches). Resuming after n is exact when n is kept (rows are pruned by
// id, so every later one is kept too), at or above the beginning of the
// current presence (events were written all along since) and below the
// horizon (an id the server could have sent). A stream without an id
// begins at the horizon: every event that commits from then on is sent
// (and possibly some that committed just before, which the lists show).
func (s *store) open(ctx context.Context, memberID int64, window time.Duration, after *int64) (from int64, resumable bool, err error) {
	var r struct {
		Since   int64 `db:"since_seq"`
		Horizon int64 `db:"horizon"`
		Kept    bool  `db:"kept"`
	}
	var n int64
	if after != nil {
		n = *after
	}
	if err := sqlx.GetContext(ctx, s.db, &r, openSQL, memberID, window.Seconds(), n); err != nil {
		return 0, false, pg.Classify(ctx, fmt.Errorf("open stream: %w", err))
	}
	if after == nil {
		return r.Horizon - 1, true, nil
	}
	if n >= r.Since && n < r.Horizon && r.Kept {
		return n, true, nil
	}
	return r.Horizon - 1, false, nil
}

// touch extends the presence of members to now() + window.
func (s *store) touch(ctx context.Context, members []int64, window time.Duration) error {
	const q = `UPDATE stream_presence SET until = GREATEST(until, now() + make_interval(secs => $2)) WHERE member_id = ANY ($1)`
	if _, err := s.db.ExecContext(ctx, q, pq.Array(members), window.Seconds()); err != nil {
		return pg.Classify(ctx, fmt.Errorf("stream presence: %w", err))
	}
	return nil
}

// horizon returns the current delivery horizon (horizonSQL).
func (s *store) horizon(ctx context.Context) (int64, error) {
	var h int64
	if err := s.db.GetContext(ctx, &h, `SELECT `+horizonSQL); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("stream horizon: %w", err))
	}
	return h, nil
}

// prune deletes, in batches, the events with ids below horizon, and
// returns how many. A batch finds its rows by id and deletes them by
// position (stream_events has no surrogate key: migration 000034).
func (s *store) prune(ctx context.Context, horizon int64, batch int) (int64, error) {
	const q = `
		DELETE FROM stream_events WHERE ctid = ANY (ARRAY (
		    SELECT ctid FROM stream_events WHERE seq < $1 LIMIT $2))`
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, q, horizon, batch)
		if err != nil {
			return total, pg.Classify(ctx, fmt.Errorf("prune stream events: %w", err))
		}
		n, _ := res.RowsAffected()
		total += n
		if n < int64(batch) {
			return total, nil
		}
	}
}

// postRow is a post of a post event, with its author.
type postRow struct {
	ID        int64     `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	apiurl.Author
}

// readKey is one stream's read: the member's events after the id after.
type readKey struct {
	member, after int64
}

// readSQL returns, for each stream $1[i] (a member) and $2[i] (the id it
// delivered last), up to $3 of the member's events after it in id order,
// column i naming the stream (1-based), each marked settled or not by the
// statement's horizon (a stream sends only the settled ones, which come
// first: ids in order, one horizon for all). A settled post event carries
// its post and author when the member may see it in their home feed, by
// the feed's own rule (visibility.PostInStream: a block either way, a mute
// or a suspension of the author hides the post); columns null otherwise. The
// post is a LATERAL probe by its key whatever the batch's size (LIMIT 1
// keeps the planner from flattening it into a join it could hash). One
// statement serves the streams one NOTIFY woke together, the events and
// the posts they name: a post's fan-out wakes every present follower at
// once, and a read and a render each, per stream, were most of what open
// streams cost the mix.
var readSQL = `
	SELECT k.i, e.seq, e.kind, e.ref_id, e.ref2_id, e.seq < h.horizon AS settled, p.*
	  FROM (SELECT ` + horizonSQL + ` AS horizon) h
	 CROSS JOIN unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS k(member_id, after, i)
	 CROSS JOIN LATERAL (
	       SELECT e.seq, e.kind, e.ref_id, e.ref2_id FROM stream_events e
	        WHERE e.member_id = k.member_id AND e.seq > k.after ORDER BY e.seq LIMIT $3) e
	  LEFT JOIN LATERAL (
	       SELECT p.created_at AS post_created_at, a.id AS author_id, a.handle AS author_handle, a.name AS author_name,
	              a.avatar_url AS author_avatar_url, a.verified AS author_verified
	         FROM posts p JOIN members a ON a.id = p.author_id
	        WHERE e.kind = 'post' AND e.seq < h.horizon AND p.id = e.ref_id AND ` + visibility.PostInStream("p", "k.member_id") + `
	        LIMIT 1) p ON true
	 ORDER BY k.i, e.seq`

// readRow is a row of readSQL.
type readRow struct {
	I int `db:"i"`
	Row
	PostCreatedAt   *time.Time `db:"post_created_at"`
	AuthorID        *int64     `db:"author_id"`
	AuthorHandle    *string    `db:"author_handle"`
	AuthorName      *string    `db:"author_name"`
	AuthorAvatarURL *string    `db:"author_avatar_url"`
	AuthorVerified  *bool      `db:"author_verified"`
}

// read answers the reads keys with one statement: for each, up to limit
// events in id order, a visible post event with its post (Row.post).
func (s *store) read(ctx context.Context, keys []readKey, limit int) ([][]Row, error) {
	members := make([]int64, len(keys))
	afters := make([]int64, len(keys))
	for i, k := range keys {
		members[i], afters[i] = k.member, k.after
	}
	var rows []readRow
	if err := sqlx.SelectContext(ctx, s.prep, &rows, readSQL, pq.Array(members), pq.Array(afters), limit); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("read stream events: %w", err))
	}
	out := make([][]Row, len(keys))
	for _, r := range rows {
		if r.I < 1 || r.I > len(keys) {
			return nil, fmt.Errorf("read stream events: stream %d of %d", r.I, len(keys))
		}
		if r.Kind == "post" && r.AuthorID != nil && r.PostCreatedAt != nil {
			r.post = &postRow{ID: r.Ref, CreatedAt: *r.PostCreatedAt, Author: apiurl.Author{
				ID: *r.AuthorID, Handle: deref(r.AuthorHandle), Name: deref(r.AuthorName),
				AvatarURL: r.AuthorAvatarURL, Verified: r.AuthorVerified != nil && *r.AuthorVerified}}
		}
		out[r.I-1] = append(out[r.I-1], r.Row)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
