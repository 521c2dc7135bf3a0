package hydrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Profile is a member as one viewer sees it.
type Profile struct {
	ID            int64     `db:"id"`
	Handle        string    `db:"handle"`
	Name          string    `db:"name"`
	Bio           *string   `db:"bio"`
	AvatarURL     *string   `db:"avatar_url"`
	Verified      bool      `db:"verified"`
	CreatedAt     time.Time `db:"created_at"`
	Followers     int       `db:"follower_count"`
	Following     int       `db:"following_count"`
	Posts         int       `db:"posts"` // only the posts the viewer may see
	IsSelf        bool      `db:"is_self"`
	ViewerFollows bool      `db:"viewer_follows"`
	FollowsViewer bool      `db:"follows_viewer"`
	Blocking      bool      `db:"blocking"` // the viewer blocks the member
	Muting        bool      `db:"muting"`   // the viewer mutes the member
}

// memberColumns are the columns of a Profile that are the member m's own,
// the same for every viewer.
const memberColumns = `m.id, m.handle, m.name, m.bio, m.avatar_url, m.verified, m.created_at`

// relationColumns are the columns of a Profile that relate the member m and
// the viewer $1 but that no follow by $1 changes, so that
// ProfileAfterFollowColumns shares them.
const relationColumns = `m.id = $1 AS is_self,
	EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = m.id AND f.followee_id = $1) AS follows_viewer,
	EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = $1 AND b.blocked_id = m.id) AS blocking,
	EXISTS (SELECT 1 FROM mutes mu WHERE mu.muter_id = $1 AND mu.muted_id = m.id) AS muting`

// profileColumns selects a Profile from members m as the viewer $1 sees it.
// Its count of posts applies the author part of the rule once, to m, and
// each post's own setting per post (visibility.Setting), as the member's
// posts list does.
var profileColumns = memberColumns + `,
	m.follower_count, m.following_count,
	CASE WHEN ` + visibility.Author("m.id", "$1") + `
	     THEN (SELECT count(*) FROM posts p WHERE p.author_id = m.id AND ` + visibility.Setting("p", "$1") + `)
	     ELSE 0 END AS posts,
	EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $1 AND f.followee_id = m.id) AS viewer_follows,
	` + relationColumns

// GetProfile returns the member with handle (matched case-insensitively) as
// viewerID sees it, in one query, which checks the token of a provisional
// principal (auth.GuardSQL). An unknown member, and one the viewer may not
// see (visibility.MemberRow: suspended, or blocking the viewer), is NotFound.
func GetProfile(ctx context.Context, q sqlx.QueryerContext, viewerID int64, handle string) (Profile, error) {
	query := `
		SELECT ` + profileColumns + `
		  FROM members m
		 WHERE lower(m.handle) = lower($2) AND ` + visibility.MemberRow("m", "$1") + ` AND ` + auth.GuardSQL("$3")
	var p Profile
	err := sqlx.GetContext(ctx, q, &p, query, viewerID, handle, auth.GuardArg(ctx))
	if errors.Is(err, sql.ErrNoRows) {
		return Profile{}, apperr.New(apperr.NotFound, "No member with this handle.")
	}
	if err != nil {
		return Profile{}, pg.Classify(ctx, fmt.Errorf("get profile: %w", err))
	}
	auth.Confirm(ctx)
	return p, nil
}

// ProfileAfterFollowColumns returns the columns of a ProfileAfterFollow of
// the member m as the viewer $1 sees it, for the statement that has itself
// just written whether $1 follows m (the follow toggle). Every read of one
// statement sees the snapshot taken before its writes, so what the write
// changed comes from the caller, as SQL expressions over the write's
// RETURNING: followers and following, m's new counts, and viewerFollows,
// whether $1 now follows m. Which of m's posts $1 may see hangs on that
// follow too, and visibility.Post would read it from the snapshot: so the
// columns carry m's posts counted per visibility, and SeenBy applies the
// rule to them (visibility.Sees, held to the same table as Post).
//
// follows_viewer still comes from the snapshot: the caller must know that no
// write of m's follow of $1 committed after it (the toggle re-runs when one
// may have).
func ProfileAfterFollowColumns(followers, following, viewerFollows string) string {
	return memberColumns + `,
	` + followers + ` AS follower_count,
	` + following + ` AS following_count,
	(SELECT json_object_agg(v.visibility, v.n)
	   FROM (SELECT p.visibility, count(*) AS n FROM posts p WHERE p.author_id = m.id GROUP BY p.visibility) v
	) AS posts_by_visibility,
	` + viewerFollows + ` AS viewer_follows,
	` + relationColumns
}

// ProfileAfterFollow is a row of ProfileAfterFollowColumns: a Profile but
// for its Posts, which SeenBy counts.
type ProfileAfterFollow struct {
	Profile
	PostsByVisibility postCounts `db:"posts_by_visibility"`
}

// SeenBy returns the Profile as viewerID (the statement's $1) sees it,
// counting the posts that viewerID may see now that the write is done.
func (p ProfileAfterFollow) SeenBy(viewerID int64) Profile {
	out := p.Profile
	out.Posts = 0
	follows := func(int64) bool { return p.ViewerFollows }
	for vis, n := range p.PostsByVisibility {
		if visibility.Sees(vis, p.ID, viewerID, follows, nil) { // a follow is only written between members no block separates
			out.Posts += n
		}
	}
	return out
}

// postCounts is a member's number of posts by visibility, read from a JSON
// object (NULL when there are none).
type postCounts map[string]int

// Scan implements sql.Scanner.
func (c *postCounts) Scan(src any) error {
	*c = nil
	switch v := src.(type) {
	case nil:
		return nil
	case []byte:
		return json.Unmarshal(v, c)
	case string:
		return json.Unmarshal([]byte(v), c)
	}
	return fmt.Errorf("posts by visibility: cannot scan %T", src)
}

// ProfileAPI renders p.
func ProfileAPI(u apiurl.URLs, p Profile) gen.Profile {
	return gen.Profile{
		ID: p.ID, Handle: p.Handle, Name: p.Name, Avatar: u.MediaPtr(p.AvatarURL), Verified: p.Verified,
		URL: u.Profile(p.Handle), Bio: p.Bio, CreatedAt: apitime.New(p.CreatedAt),
		Counts: gen.ProfileCounts{Followers: p.Followers, Following: p.Following, Posts: int64(p.Posts)},
		Viewer: gen.ProfileViewer{IsSelf: p.IsSelf, Following: p.ViewerFollows, FollowedBy: p.FollowsViewer,
			Blocking: p.Blocking, Muting: p.Muting},
	}
}
