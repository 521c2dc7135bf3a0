// Package search finds people, posts, listings and jobs for one caller, ranked
// by relevance with deterministic tie-breaks (newest first, then id), and
// counts only what the caller may see.
//
// People match by trigram word similarity on lower(name || ' ' || handle)
// (members_search_trgm_idx) or by substring, handles starting with the text
// ranking first; posts, listings and jobs by full-text search on their
// search_tsv (websearch_to_tsquery with the 'simple' configuration). A text
// made only of hashtags matches posts carrying all those tags exactly
// (post_tags, a side table the posts triggers keep in step with posts.tags).
// Posts pass the stream's visibility rule in SQL (visibility.PostInStream:
// a search is a stream, so mutes hide posts too); people, the rule of
// members (visibility.Author: suspended members and members a block
// separates from the caller are not found, muted ones are). Of posts,
// listings and jobs,
// only the MatchCap matches with the highest ids are ranked and counted. A
// text finds them by walking the kind's search_keys index (words bucketed by
// id, migration 16) from the highest ids down, by the lexemes every match
// carries, or, for a text with "or", by those of which each match carries one
// (tsqueryShape); a text that may match a row without any of its words
// ("-tea") is read without that index. A Store made WithMatchCache keeps what
// a text matched for a few seconds, for every caller, and filters it for each
// (cache.go).
package search

import (
	"strings"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/richtext"
)

// Kind is one kind of search result.
type Kind string

// The kinds, in the order a search without a kind runs them.
const (
	People   Kind = "people"
	Posts    Kind = "posts"
	Listings Kind = "listings"
	Jobs     Kind = "jobs"
)

// Kinds lists every kind.
var Kinds = []Kind{People, Posts, Listings, Jobs}

// Query is a search text prepared for each kind.
type Query struct {
	// Text is the text as given, in websearch syntax (quotes, or, -word)
	// for posts, listings and jobs.
	Text string
	// Tags is set when the text is only hashtags: posts must carry them all.
	Tags []string
	// Name is the text people match: lower case, without the '@' or '#' that
	// starts a word, so "@Alice" finds alice.
	Name string
}

// Parse prepares the search text q. A text with nothing but white space is
// an invalid_parameter error; the spec bounds the length.
func Parse(q string) (Query, error) {
	words := strings.Fields(q)
	if len(words) == 0 {
		detail := "q must contain something other than white space."
		return Query{}, &apperr.Error{Code: apperr.InvalidParameter, Detail: detail,
			Fields: []apperr.FieldError{{Parameter: "q", Code: apperr.FieldInvalid, Detail: detail}}}
	}
	out := Query{Text: q}
	names := make([]string, len(words))
	var tags []string
	for i, w := range words {
		names[i] = strings.TrimLeft(w, "@#")
		if t := richtext.Parse(w).Tags; len(t) == 1 && strings.EqualFold(w, "#"+t[0]) {
			tags = append(tags, t[0])
		}
	}
	if len(tags) == len(words) {
		out.Tags = tags
	}
	out.Name = strings.ToLower(strings.Join(strings.Fields(strings.Join(names, " ")), " "))
	return out, nil
}
