// Package hydrate reads what the API shows of posts and members as one viewer
// sees them (the visibility rule, the counters, the viewer's own reaction,
// poll votes and follow state) and renders it as the API's types.
//
// Every read path that shows a post or a profile (a single post, the feed, a
// member's posts, the follow toggle, search) goes through it, so they cannot
// drift apart. A page of posts is hydrated in one query, whatever its size:
// the query reads what changes (counters, the viewer's reaction and poll
// votes) and decides existence and visibility, and the rest of each post
// comes from Cache (cache.go says why that needs no invalidation).
package hydrate

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
)

// URLs builds the absolute URLs of bodies and headers from the configured
// public base URL (never from the request's Host).
type URLs struct {
	Public string // e.g. https://social.example
	API    string // Public + the API's base path, e.g. https://social.example/api/v1
}

// The public pages' paths after the base URL (appendStatic writes them
// too): a member's profile, a post under its author's, a hashtag.
const profilePath, postsPath, tagPath = "/@", "/posts/", "/tags/"

// Profile is the public page of a member.
func (u URLs) Profile(handle string) string { return u.Public + profilePath + handle }

// Post is the public page of a post.
func (u URLs) Post(authorHandle string, id int64) string {
	return u.Profile(authorHandle) + postsPath + strconv.FormatInt(id, 10)
}

// Tag is the public page of a hashtag. A tag may have any letter (#café), so
// its name is percent-encoded as a path segment; handles are ASCII letters,
// digits and '_' (members_handle_check), which a URI path carries as they are.
func (u URLs) Tag(name string) string { return u.Public + tagPath + url.PathEscape(name) }

// Media resolves a stored media path against the public base URL; stored
// absolute URLs are returned as they are.
func (u URLs) Media(path string) string { return u.mediaBase(path) + path }

// mediaBase is what Media puts before path: the public base URL for a
// path, nothing for an absolute URL.
func (u URLs) mediaBase(path string) string {
	if len(path) > 0 && path[0] == '/' {
		return u.Public
	}
	return ""
}

// MediaPtr is Media for an optional path.
func (u URLs) MediaPtr(path *string) *string {
	if path == nil {
		return nil
	}
	v := u.Media(*path)
	return &v
}

// APIPost is the API URL of a post (the Location of a new post).
func (u URLs) APIPost(id int64) string { return u.API + "/posts/" + strconv.FormatInt(id, 10) }

// Author is the short form of a member as posts and comments show it.
type Author struct {
	ID        int64   `db:"author_id" json:"id"`
	Handle    string  `db:"author_handle" json:"handle"`
	Name      string  `db:"author_name" json:"name"`
	AvatarURL *string `db:"author_avatar_url" json:"avatar_url"`
	Verified  bool    `db:"author_verified" json:"verified"`
}

// UserSummary renders a.
func (u URLs) UserSummary(a Author) gen.UserSummary {
	return gen.UserSummary{ID: a.ID, Handle: a.Handle, Name: a.Name, Avatar: u.MediaPtr(a.AvatarURL),
		Verified: a.Verified, URL: u.Profile(a.Handle)}
}

// MentionRef is a mentioned member.
type MentionRef struct {
	ID     int64  `json:"id"`
	Handle string `json:"handle"`
}

// Mentions renders ms (never nil).
func (u URLs) Mentions(ms []MentionRef) []gen.Mention {
	out := make([]gen.Mention, len(ms))
	for i, m := range ms {
		out[i] = gen.Mention{ID: m.ID, Handle: m.Handle, URL: u.Profile(m.Handle)}
	}
	return out
}

// Tags renders tag names (never nil).
func (u URLs) Tags(names []string) []gen.Tag {
	out := make([]gen.Tag, len(names))
	for i, n := range names {
		out[i] = gen.Tag{Name: n, URL: u.Tag(n)}
	}
	return out
}

// Written is what a write statement returns, beside the row it wrote, of
// the members around it (WrittenColumns), so the write can answer without
// reading its row back: the author's profile and the members it mentions
// that exist and are not suspended, in order.
type Written struct {
	MentionIDs     pq.Int64Array  `db:"mention_ids"`
	MentionHandles pq.StringArray `db:"mention_handles"`
	AuthorHandle   string         `db:"author_handle"`
	AuthorName     string         `db:"author_name"`
	AuthorAvatar   *string        `db:"author_avatar_url"`
	AuthorVerified bool           `db:"author_verified"`
}

// WrittenColumns selects a Written from the author's members row (aliased
// author) and the rows (member_id, position) a write put in its mentions
// table (mentioned: a WITH item's name).
func WrittenColumns(author, mentioned string) string {
	return `ARRAY(SELECT member_id FROM ` + mentioned + ` ORDER BY position) AS mention_ids,
	       ARRAY(SELECT mm.handle FROM ` + mentioned + ` x JOIN members mm ON mm.id = x.member_id ORDER BY x.position) AS mention_handles,
	       ` + author + `.handle AS author_handle, ` + author + `.name AS author_name, ` + author + `.avatar_url AS author_avatar_url,
	       ` + author + `.verified AS author_verified`
}

// Author is the author, whose id is id.
func (w Written) Author(id int64) Author {
	return Author{ID: id, Handle: w.AuthorHandle, Name: w.AuthorName, AvatarURL: w.AuthorAvatar, Verified: w.AuthorVerified}
}

// Mentions are the members mentioned.
func (w Written) Mentions() []MentionRef {
	refs := make([]MentionRef, len(w.MentionIDs))
	for i, id := range w.MentionIDs {
		refs[i] = MentionRef{ID: id, Handle: w.MentionHandles[i]}
	}
	return refs
}

// JSON scans a json or jsonb column into a T.
type JSON[T any] struct{ V T }

// Scan implements sql.Scanner.
func (j *JSON[T]) Scan(src any) error {
	switch b := src.(type) {
	case []byte:
		return json.Unmarshal(b, &j.V)
	case string:
		return json.Unmarshal([]byte(b), &j.V)
	case nil:
		return nil
	}
	return fmt.Errorf("hydrate: cannot scan %T into JSON", src)
}

// jsonTime is a timestamptz rendered by to_json (any offset, maybe fractions).
type jsonTime struct{ time.Time }

func (t *jsonTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = p
	return nil
}

func apiTimePtr(t *jsonTime) *apitime.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	v := apitime.New(t.Time)
	return &v
}
