package posts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Poll votes
//
// A member votes once per poll, for one option unless the poll is multiple,
// while the poll is open and its post visible to them. The vote takes the
// poll's row lock first (FOR NO KEY UPDATE, which readers never wait for) and
// only then looks for the member's earlier vote, in a statement of its own:
// under READ COMMITTED that statement sees every vote committed by whoever
// held the lock before, so of two concurrent votes of one member the second
// finds the first and is refused. Reading "voted" in the locking statement
// would not do: its snapshot predates the wait. The counters are updated
// under the same lock, so they move with the rows.

// noPoll is the one answer for a post that does not exist, that the voter
// may not see, or that has no poll.
func noPoll() error { return apperr.New(apperr.NotFound, "No such poll.") }

// lockPollSQL locks the poll of post $1 if member $2 may see the post and
// tells what a vote checks. (A vote is no guarded write: the edge
// authenticates its token in full first.)
var lockPollSQL = `
	SELECT pl.id, pl.multiple, pl.expires_at, pl.closed_notified_at IS NOT NULL AS announced,
	       (SELECT count(*) FROM poll_options o WHERE o.poll_id = pl.id) AS options
	  FROM polls pl
	  JOIN posts p ON p.id = pl.post_id
	 WHERE pl.post_id = $1 AND ` + visibility.PostByKey("p", "$2") + `
	   FOR NO KEY UPDATE OF pl`

// VotePollTx records voterID's vote for the options at the indexes choices of
// the poll of post postID, at the time at (nil: now, once the poll's lock is
// held), and maintains the poll's counters. It must run in a transaction
// (ex), which holds the poll's lock until it ends.
//
// Refusals, in order: no such poll or post, or one the voter may not see
// (NotFound); no choice (too_short); an index twice (duplicate); the poll
// closed (poll_closed); the voter has voted (already_voted); several choices
// in a single-choice poll (single_choice); an index that is no option
// (out_of_range).
func VotePollTx(ctx context.Context, ex sqlx.ExtContext, postID, voterID int64, choices []int, at *time.Time) error {
	if len(choices) == 0 {
		return apperr.Field("/choices", apperr.FieldTooShort, "choose at least one option")
	}
	seen := map[int]bool{}
	for i, c := range choices {
		if seen[c] {
			return apperr.Field(fmt.Sprintf("/choices/%d", i), apperr.FieldDuplicate, fmt.Sprintf("option %d is chosen twice", c))
		}
		seen[c] = true
	}
	var poll struct {
		ID        int64      `db:"id"`
		Multiple  bool       `db:"multiple"`
		ExpiresAt *time.Time `db:"expires_at"`
		Announced bool       `db:"announced"`
		Options   int        `db:"options"`
	}
	err := sqlx.GetContext(ctx, ex, &poll, lockPollSQL, postID, voterID)
	if errors.Is(err, sql.ErrNoRows) {
		return noPoll()
	}
	if err != nil {
		return pg.Classify(ctx, fmt.Errorf("find poll: %w", err))
	}
	// After the lock: this statement's snapshot holds the votes of every
	// transaction that held it before, and its time is not earlier than the
	// lock (a vote that waited for a closer sees the poll closed).
	var state struct {
		At    time.Time `db:"at"`
		Voted bool      `db:"voted"`
	}
	const stateSQL = `
		SELECT COALESCE($3, statement_timestamp()) AS at,
		       EXISTS (SELECT 1 FROM poll_votes v WHERE v.poll_id = $1 AND v.member_id = $2) AS voted`
	if err := sqlx.GetContext(ctx, ex, &state, stateSQL, poll.ID, voterID, at); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find vote: %w", err))
	}
	switch {
	case poll.Announced || poll.ExpiresAt != nil && !state.At.Before(*poll.ExpiresAt):
		return apperr.Field("/choices", apperr.FieldPollClosed, "this poll has expired")
	case state.Voted:
		return apperr.Field("/choices", apperr.FieldAlreadyVoted, "this member has already voted in this poll")
	case !poll.Multiple && len(choices) > 1:
		return apperr.Field("/choices", apperr.FieldSingleChoice, "this poll allows one choice")
	}
	for i, c := range choices {
		if c < 0 || c >= poll.Options {
			return apperr.Field(fmt.Sprintf("/choices/%d", i), apperr.FieldOutOfRange,
				fmt.Sprintf("this poll's options are 0 to %d", poll.Options-1))
		}
	}
	const q = `
		WITH votes AS (
		    INSERT INTO poll_votes (poll_id, member_id, position, created_at)
		    SELECT $1, $2, c, $4 FROM unnest($3::int[]) AS c
		    RETURNING position
		), opts AS (
		    UPDATE poll_options o SET votes = o.votes + 1
		      FROM votes WHERE o.poll_id = $1 AND o.position = votes.position
		)
		UPDATE polls SET votes_count = votes_count + (SELECT count(*) FROM votes), voters_count = voters_count + 1
		 WHERE id = $1`
	if _, err := ex.ExecContext(ctx, q, poll.ID, voterID, pq.Array(choices), state.At); err != nil {
		return pg.Classify(ctx, fmt.Errorf("vote: %w", err))
	}
	return nil
}

// VotePoll records voterID's vote in the poll of post postID (VotePollTx)
// and returns the post as the voter reads it within the vote's transaction:
// the poll with the vote, whatever a cache holds.
func (s *Store) VotePoll(ctx context.Context, voterID, postID int64, choices []int) (hydrate.Post, error) {
	var p hydrate.Post
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := VotePollTx(ctx, tx, postID, voterID, choices, nil); err != nil {
			return err
		}
		ps, err := s.cache.Posts(ctx, s.prep.Tx(tx), voterID, []int64{postID})
		if err != nil {
			return err
		}
		if len(ps) == 0 || ps[0].Poll == nil {
			// A block or suspension committed since the lock hid the post:
			// the vote is undone, as if it had come after.
			return noPoll()
		}
		p = ps[0]
		return nil
	})
	return p, err
}

// PollVisible reports whether post id exists, viewerID may see it and it has
// a poll (nil), or not (NotFound, answered alike).
func (s *Store) PollVisible(ctx context.Context, viewerID, id int64) error {
	query := `SELECT EXISTS (SELECT 1 FROM posts p JOIN polls pl ON pl.post_id = p.id
	                          WHERE p.id = $2 AND ` + visibility.PostByKey("p", "$1") + `)`
	var ok bool
	if err := sqlx.GetContext(ctx, s.prep, &ok, query, viewerID, id); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find poll: %w", err))
	}
	if !ok {
		return noPoll()
	}
	return nil
}
