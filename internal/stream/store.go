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
	Seq   int64  `db:"seq"`
	Kind  string `db:"kind"`
	Ref   int64  `db:"ref_id"`
	Ref2  *int64 `db:"ref2_id"`
	Valid bool   `db:"-"`
}

// store reads and writes the stream's tables (migration 000032). Its
// reads run as prepared statements (prep): a stream's wake-ups repeat them
// by the thousand, and unnamed statements were planned every time (the
// rendering of post events planned longer than it ran).
type store struct {
	db   *sqlx.DB
	prep *pg.Prepared
}

func newStore(db *sqlx.DB) *store { return &store{db: db, prep: pg.NewPrepared(db)} }

// openSQL begins or extends the presence of $1 until now() + $2 seconds:
// a presence that lapsed begins again (since_seq rises to last_seq: an id
// at or below it may have missed events). It returns since_seq, last_seq,
// and whether the event $3 of the member is kept.
const openSQL = `
	WITH p AS (
	    INSERT INTO stream_presence AS sp (member_id, until) VALUES ($1, now() + make_interval(secs => $2))
	    ON CONFLICT (member_id) DO UPDATE
	       SET since_seq = CASE WHEN sp.until > now() THEN sp.since_seq ELSE sp.last_seq END,
	           until = GREATEST(sp.until, excluded.until)
	    RETURNING since_seq, last_seq
	)
	SELECT p.since_seq, p.last_seq,
	       EXISTS (SELECT 1 FROM stream_events e WHERE e.member_id = $1 AND e.seq = $3) AS kept
	  FROM p`

// open records the presence of memberID for window and returns the event
// id to deliver after: after, when the stream resumes there exactly, or
// the last id given so far and resumable false (the client refetches).
// Resuming after n is exact when n is kept (rows are pruned oldest first,
// so every later one is kept too) and above the start of the current
// presence (events were written all along since).
func (s *store) open(ctx context.Context, memberID int64, window time.Duration, after *int64) (from int64, resumable bool, err error) {
	var r struct {
		Since int64 `db:"since_seq"`
		Last  int64 `db:"last_seq"`
		Kept  bool  `db:"kept"`
	}
	var n int64
	if after != nil {
		n = *after
	}
	if err := sqlx.GetContext(ctx, s.db, &r, openSQL, memberID, window.Seconds(), n); err != nil {
		return 0, false, pg.Classify(ctx, fmt.Errorf("open stream: %w", err))
	}
	if after == nil {
		return r.Last, true, nil
	}
	if n > r.Since && n <= r.Last && r.Kept {
		return n, true, nil
	}
	if n == r.Last && n == r.Since && n == 0 {
		return 0, true, nil // nothing was ever sent: nothing was missed
	}
	return r.Last, false, nil
}

// touch extends the presence of memberID to now() + window.
func (s *store) touch(ctx context.Context, memberID int64, window time.Duration) error {
	const q = `UPDATE stream_presence SET until = GREATEST(until, now() + make_interval(secs => $2)) WHERE member_id = $1`
	if _, err := s.db.ExecContext(ctx, q, memberID, window.Seconds()); err != nil {
		return pg.Classify(ctx, fmt.Errorf("stream presence: %w", err))
	}
	return nil
}

// read returns up to limit events of memberID after the id after, in id
// order.
func (s *store) read(ctx context.Context, memberID, after int64, limit int) ([]Row, error) {
	const q = `SELECT seq, kind, ref_id, ref2_id FROM stream_events WHERE member_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`
	rows := []Row{}
	if err := sqlx.SelectContext(ctx, s.prep, &rows, q, memberID, after, limit); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("read stream events: %w", err))
	}
	return rows, nil
}

// prune deletes, in batches, the events numbered more than window ago,
// and returns how many.
func (s *store) prune(ctx context.Context, window time.Duration, batch int) (int64, error) {
	const q = `
		DELETE FROM stream_events WHERE id IN (
		    SELECT id FROM stream_events WHERE created_at < now() - make_interval(secs => $1) LIMIT $2)`
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, q, window.Seconds(), batch)
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

// postsSQL selects the posts among $2 that the member $1 may see in their
// home feed, by the feed's own rule: visibility.For("$1").PostInStream, a
// stream's (a block either way, a mute or a suspension of the author hides
// the post).
var postsSQL = `
	WITH ` + visibility.For("$1").With() + `
	SELECT p.id, p.created_at, a.id AS author_id, a.handle AS author_handle, a.name AS author_name,
	       a.avatar_url AS author_avatar_url, a.verified AS author_verified
	  FROM posts p JOIN members a ON a.id = p.author_id
	 WHERE p.id = ANY ($2) AND ` + visibility.For("$1").PostInStream("p") + "\n"

func (s *store) posts(ctx context.Context, memberID int64, ids []int64) (map[int64]postRow, error) {
	var rows []postRow
	if err := sqlx.SelectContext(ctx, s.prep, &rows, postsSQL, memberID, pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("stream posts: %w", err))
	}
	out := make(map[int64]postRow, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}
