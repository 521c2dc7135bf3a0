package apiurl

import (
	"context"
	"net/url"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/cursor"
)

// ListMeta renders the page metadata.
func ListMeta(p cursor.Page) gen.ListMeta {
	return gen.ListMeta{PerPage: p.PerPage, HasMore: p.HasMore, NextCursor: p.NextCursor, NextURL: p.NextURL}
}

// InboxListMeta renders the page metadata of an inbox (conversations,
// notifications): a list's, with the caller's unread count.
func InboxListMeta(p cursor.Page, unread int) gen.InboxListMeta {
	return gen.InboxListMeta{PerPage: p.PerPage, HasMore: p.HasMore, NextCursor: p.NextCursor, NextURL: p.NextURL,
		UnreadCount: int64(unread)}
}

// Lister answers a public list operation over items T under a filter F
// (the market's listings, the jobs): it pages List (cursor.Paginate) and
// answers a page with Respond, the operation's 200 response R.
type Lister[F any, T cursor.Keyed, R any] struct {
	// Scope names the list in its cursors and is its path under URLs.API.
	Scope   string
	URLs    URLs
	List    func(ctx context.Context, f F, after *cursor.Position, limit int) ([]T, error)
	Respond func(urls URLs, items []T, page cursor.Page) R
}

// NewLister returns the Lister of the list scope, whose URLs have the base
// publicURL (the list itself is publicURL/api/v1/scope).
func NewLister[F any, T cursor.Keyed, R any](scope, publicURL string,
	list func(ctx context.Context, f F, after *cursor.Position, limit int) ([]T, error),
	respond func(urls URLs, items []T, page cursor.Page) R,
) Lister[F, T, R] {
	urls := URLs{Public: publicURL, API: publicURL + "/api/v1"}
	return Lister[F, T, R]{Scope: scope, URLs: urls, List: list, Respond: respond}
}

// Answer answers one request of the list: f and query are its filters
// (query as the cursor is bound to them), perPage and cur its paging
// parameters. On error the response is R's zero value.
func (l Lister[F, T, R]) Answer(ctx context.Context, f F, query url.Values, perPage *int, cur *string) (R, error) {
	r := cursor.Request{Scope: l.Scope, Self: l.URLs.API + "/" + l.Scope, Query: query, PerPage: perPage, Cursor: cur}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) ([]T, error) {
		return l.List(ctx, f, after, limit)
	})
	if err != nil {
		var none R
		return none, err
	}
	return l.Respond(l.URLs, items, page), nil
}
