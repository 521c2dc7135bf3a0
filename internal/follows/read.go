package follows

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/hydrate"
)

// ToggleProfile is Toggle followed by the followee's profile as followerID
// now sees it, in one statement (toggleProfileSQL) rather than a transaction
// of the toggle and hydrate.GetProfile: the profile shows the toggle's own
// result even when another toggle of the pair commits right after.
func (s *Store) ToggleProfile(ctx context.Context, followerID int64, followeeHandle string) (bool, hydrate.Profile, error) {
	var row profileRow
	get := func(ctx context.Context, args ...any) (result, error) {
		row = profileRow{} // a lost race re-runs the whole statement
		err := sqlx.GetContext(ctx, s.prep, &row, toggleProfileSQL, args...)
		return row.result, err
	}
	following, _, err := toggle(ctx, get, followerID, followeeHandle)
	if err != nil {
		return false, hydrate.Profile{}, err
	}
	return following, row.SeenBy(followerID), nil
}

// profileRow is a row of toggleProfileSQL.
type profileRow struct {
	result
	hydrate.ProfileAfterFollow
}

// toggleProfileSQL is writeSQL (with the same arguments) that also returns
// the followee's profile as the follower $1 sees it once the write is done.
//
// All of the statement's reads see the snapshot taken when it started,
// before its writes and before it waited for the members' locks. So the
// profile's counts and whether $1 follows come from what the write returned
// (counted, ins), never from re-reading members or follows; the snapshot's
// counts only fill rows that are thrown away (an error, a lost race).
//
// Whether the followee follows $1 is still read from the snapshot, and a
// write of that follow (it locks the same two members) may have committed
// after the snapshot, while this one waited for the locks. That write moved
// the followee's following_count, so the snapshot's count then differs from
// the locked row's (pair); the same comparison catches a followee suspended
// in the meantime. Either way the statement writes nothing (fresh is false)
// and the toggle runs it again with a fresh snapshot, as after a lost race:
// the profile is read as of the locks, like the transaction this replaced,
// which read it once the write held them. Only the followee's own follows
// move that count, so a busy member (many following the followee, or $1)
// causes no re-runs; the one case it misses is the followee also following
// or unfollowing someone else in that moment, which can cancel it out in the
// count. A block of either member by the other in that moment is caught by
// every follow write (settled, writeCTEs), so that fresh need not ask.
var toggleProfileSQL = writeCTEs(fresh) + `
	SELECT t.id AS followee_id, ` + outcome + `,
	       ` + hydrate.ProfileAfterFollowColumns(
	"COALESCE((SELECT c.follower_count FROM counted c WHERE c.id = m.id), m.follower_count)",
	"COALESCE((SELECT c.following_count FROM counted c WHERE c.id = m.id), m.following_count)",
	"EXISTS (SELECT 1 FROM ins)") + `
	  FROM target t
	  JOIN members m ON m.id = t.id`

// fresh is true when no write that bears on the profile committed between
// the statement's snapshot (members s) and the locks (pair l); see
// toggleProfileSQL.
const fresh = `NOT EXISTS (
	        SELECT 1 FROM pair l JOIN members s ON s.id = l.id
	         WHERE l.id <> $1 AND (l.following_count <> s.following_count OR l.suspended_at IS NOT NULL))`
