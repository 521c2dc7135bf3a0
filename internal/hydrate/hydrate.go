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
//
// It renders only its own types (Post, Profile): what every resource renders
// alike (absolute URLs, a member's short form, money, list metadata) is
// package apiurl's, and the statements over a list of ids are
// cursor.ListQuery's.
package hydrate

import (
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
)

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
func (w Written) Author(id int64) apiurl.Author {
	return apiurl.Author{ID: id, Handle: w.AuthorHandle, Name: w.AuthorName, AvatarURL: w.AuthorAvatar, Verified: w.AuthorVerified}
}

// Mentions are the members mentioned.
func (w Written) Mentions() []apiurl.MentionRef {
	refs := make([]apiurl.MentionRef, len(w.MentionIDs))
	for i, id := range w.MentionIDs {
		refs[i] = apiurl.MentionRef{ID: id, Handle: w.MentionHandles[i]}
	}
	return refs
}
