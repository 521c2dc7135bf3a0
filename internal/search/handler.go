package search

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/inflight"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/market"
)

// TopPerPage is how many matches of each kind a search without a kind
// returns when per_page is absent.
const TopPerPage = 5

// The bounds of searches, the reads whose cost can reach tens of
// milliseconds (seconds under load) for texts no cache serves.
const (
	// DefaultPerMember is how many searches of one member read their
	// matches from the database at once (bounds.go).
	DefaultPerMember = 2
	// DefaultTimeout is how long one search may run.
	DefaultTimeout = 2 * time.Second
)

// DefaultActive is how many searches read their matches from the database
// at once on an instance by default (bounds.go): half the places that serve
// requests at once (the request gate's, or the connection pool's when it is
// smaller or there is no gate; 0: unbounded), at least one, so that every
// other request always finds a place and a connection however many
// searches are sent.
func DefaultActive(maxActive, poolSize int) int {
	places := poolSize
	if maxActive > 0 && (places <= 0 || maxActive < places) {
		places = maxActive
	}
	if places <= 0 {
		places = 2 * DefaultPerMember
	}
	return max(1, places/2)
}

// Handler answers SearchAll.
type Handler struct {
	store *Store
	urls  apiurl.URLs
	// walks bounds the searches that read their matches from the
	// database, each member's and all members' (bounds.go; nil:
	// unbounded); timeout is how long a search may run (0: the request's
	// own budget).
	walks   *inflight.Limiter
	timeout time.Duration
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// WithBounds makes h run at most what walks admits of the searches that
// read their matches from the database, a search that finds no place
// answering rate_limited at once, and stop a search after timeout (0: none
// of its own), answering unavailable.
func (h *Handler) WithBounds(walks *inflight.Limiter, timeout time.Duration) *Handler {
	h.walks, h.timeout = walks, timeout
	return h
}

// SearchAll implements gen.StrictServerInterface.
func (h *Handler) SearchAll(ctx context.Context, req gen.SearchAllRequestObject) (gen.SearchAllResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	p := req.Params
	q, err := Parse(p.Q)
	if err != nil {
		return nil, err
	}
	kind, query := Kind(""), url.Values{"q": {p.Q}}
	perPage := TopPerPage
	if p.PerPage != nil {
		perPage = *p.PerPage
	}
	var after *cursor.Position
	fp := ""
	if p.Type != nil {
		kind, perPage = Kind(*p.Type), cursor.PerPage(p.PerPage)
		query.Set("type", string(kind))
		fp = cursor.Fingerprint("search", query)
		if after, err = cursor.Decode(fp, cursor.Deref(p.Cursor)); err != nil {
			return nil, err
		}
	} else if p.Cursor != nil {
		detail := "cursor pages through one kind: give type as well."
		return nil, &apperr.Error{Code: apperr.InvalidParameter, Detail: detail,
			Fields: []apperr.FieldError{{Parameter: "cursor", Code: apperr.FieldInvalid, Detail: detail}}}
	}
	res, err := h.search(ctx, me.MemberID, q, kind, after, perPage)
	if err != nil {
		return nil, err
	}
	page := cursor.NewPage(perPage, h.urls.API+"/search", query, fp, res.Next)
	return gen.SearchAll200JSONResponse{
		Body:    gen.SearchResponse{Data: h.toAPI(res), Meta: meta(p, page, res.Totals)},
		Headers: gen.SearchAll200ResponseHeaders{Link: page.Link()},
	}, nil
}

// search runs Store.Search within the handler's bounds.
func (h *Handler) search(ctx context.Context, viewerID int64, q Query, kind Kind, after *cursor.Position, perPage int) (Result, error) {
	ctx, leave := withPlace(ctx, h.walks, viewerID)
	defer leave()
	if h.timeout <= 0 {
		return h.store.Search(ctx, viewerID, q, kind, after, perPage)
	}
	sctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	res, err := h.store.Search(sctx, viewerID, q, kind, after, perPage)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		// The search's own budget ran out, not the request's: say so, and
		// what makes a search cheaper.
		return Result{}, apperr.Wrap(apperr.Unavailable, fmt.Sprintf("The search took longer than the %s a search may run. "+
			"Retry later, or narrow it: rarer words, or one type.", h.timeout), err)
	}
	return res, err
}

func meta(p gen.SearchAllParams, page cursor.Page, t Totals) gen.SearchMeta {
	return gen.SearchMeta{
		Q: p.Q, Type: p.Type, PerPage: page.PerPage,
		Totals:  gen.SearchTotals{People: t.People, Posts: t.Posts, Listings: t.Listings, Jobs: t.Jobs},
		HasMore: page.HasMore, NextCursor: page.NextCursor, NextURL: page.NextURL,
	}
}

func (h *Handler) toAPI(res Result) gen.SearchResults {
	out := gen.SearchResults{
		People:   make([]gen.Profile, len(res.People)),
		Posts:    hydrate.PostsAPI(h.urls, res.Posts),
		Listings: market.ToAPI(h.urls, res.Listings),
		Jobs:     jobs.ToAPI(h.urls, res.Jobs),
	}
	for i, p := range res.People {
		out.People[i] = hydrate.ProfileAPI(h.urls, p)
	}
	return out
}
