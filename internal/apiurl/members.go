package apiurl

import "github.com/socialnet/socialapi/gen"

// Author is the short form of a member as posts, comments, listings and
// messages show it.
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
