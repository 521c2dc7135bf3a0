// Package apiurl renders what every resource of the API shows alike: the
// absolute URLs of its pages and media (URLs), a member's short form
// (Author), mentions and tags, money, reaction counters and list metadata,
// and answers a public filtered list (Lister). It reads nothing itself:
// each resource reads its rows and renders them through it, so that they
// render alike.
package apiurl

import (
	"net/url"
	"strconv"
)

// URLs builds the absolute URLs of bodies and headers from the configured
// public base URL (never from the request's Host).
type URLs struct {
	Public string // e.g. https://social.example
	API    string // Public + the API's base path, e.g. https://social.example/api/v1
}

// The public pages' paths after the base URL: a member's profile, a post
// under its author's, a hashtag. Renderers that write URLs by hand (package
// hydrate's) write them from these too.
const ProfilePath, PostsPath, TagPath = "/@", "/posts/", "/tags/"

// Profile is the public page of a member.
func (u URLs) Profile(handle string) string { return u.Public + ProfilePath + handle }

// Post is the public page of a post.
func (u URLs) Post(authorHandle string, id int64) string {
	return u.Profile(authorHandle) + PostsPath + strconv.FormatInt(id, 10)
}

// Tag is the public page of a hashtag. A tag may have any letter (#café), so
// its name is percent-encoded as a path segment; handles are ASCII letters,
// digits and '_' (members_handle_check), which a URI path carries as they are.
func (u URLs) Tag(name string) string { return u.Public + TagPath + url.PathEscape(name) }

// Media resolves a stored media path against the public base URL; stored
// absolute URLs are returned as they are.
func (u URLs) Media(path string) string { return u.MediaBase(path) + path }

// MediaBase is what Media puts before path: the public base URL for a
// path, nothing for an absolute URL.
func (u URLs) MediaBase(path string) string {
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
