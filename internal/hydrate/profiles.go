package hydrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
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
}

// profileColumns selects a Profile from members m as the viewer $1 sees it.
var profileColumns = `
	m.id, m.handle, m.name, m.bio, m.avatar_url, m.verified, m.created_at,
	m.follower_count, m.following_count,
	(SELECT count(*) FROM posts p WHERE p.author_id = m.id AND ` + visibility.Post("p", "$1") + `) AS posts,
	m.id = $1 AS is_self,
	EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $1 AND f.followee_id = m.id) AS viewer_follows,
	EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = m.id AND f.followee_id = $1) AS follows_viewer`

// GetProfile returns the member with handle (matched case-insensitively) as
// viewerID sees it, in one query, which checks the token of a provisional
// principal (auth.GuardSQL). An unknown or suspended member is
// NotFound.
func GetProfile(ctx context.Context, q sqlx.QueryerContext, viewerID int64, handle string) (Profile, error) {
	query := `
		SELECT ` + profileColumns + `
		  FROM members m
		 WHERE lower(m.handle) = lower($2) AND m.suspended_at IS NULL AND ` + auth.GuardSQL("$3")
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

// profilesQuery reads the members $2 (an array of ids) for the viewer $1, in
// the order of $2, by primary key.
var profilesQuery = NewListQuery("$2", func(list string) string {
	return `
	SELECT ` + profileColumns + `
	  FROM ` + list + `
	  JOIN members m ON m.id = page.id
	 WHERE m.suspended_at IS NULL
	 ORDER BY page.ord`
})

// Profiles returns the members ids as viewerID sees them, in the order of
// ids, in one query. Members suspended since ids were chosen are left out.
func Profiles(ctx context.Context, q sqlx.QueryerContext, viewerID int64, ids []int64) ([]Profile, error) {
	out := []Profile{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := sqlx.SelectContext(ctx, q, &out, profilesQuery.For(len(ids)), viewerID, pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate profiles: %w", err))
	}
	return out, nil
}

// ProfileAPI renders p.
func (u URLs) ProfileAPI(p Profile) gen.Profile {
	return gen.Profile{
		ID: p.ID, Handle: p.Handle, Name: p.Name, Avatar: u.MediaPtr(p.AvatarURL), Verified: p.Verified,
		URL: u.Profile(p.Handle), Bio: p.Bio, CreatedAt: apitime.New(p.CreatedAt),
		Counts: gen.ProfileCounts{Followers: p.Followers, Following: p.Following, Posts: p.Posts},
		Viewer: gen.ProfileViewer{IsSelf: p.IsSelf, Following: p.ViewerFollows, FollowedBy: p.FollowsViewer},
	}
}
