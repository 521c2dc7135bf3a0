package search

import (
	"context"

	"github.com/socialnet/socialapi/internal/inflight"
)

// A search's place among the searches that read matches from the database.
//
// What a text matched is kept for a few seconds (cache.go), so most searches
// read only the few items they show; a search whose matches are not kept
// walks the search_keys index, which can cost tens of milliseconds (seconds
// under load). Only those searches are bounded, each member's and all
// members' together: a search takes its place at its first walk
// (Store.hits, Store.readPosts) and keeps it to the end, or, when the
// member's or every place is taken, answers rate_limited at once. A search
// served from what is kept takes no place, so a member's many cheap
// searches are never refused.

type placeKey struct{}

// place is one search's claim on a Limiter: taken at most once.
type place struct {
	l      *inflight.Limiter
	viewer int64
	leave  func()
}

// withPlace returns ctx in which a search's walks take a place of l (nil:
// none needed), and the function that gives it back.
func withPlace(ctx context.Context, l *inflight.Limiter, viewerID int64) (context.Context, func()) {
	if l == nil {
		return ctx, func() {}
	}
	p := &place{l: l, viewer: viewerID}
	return context.WithValue(ctx, placeKey{}, p), func() {
		if p.leave != nil {
			p.leave()
		}
	}
}

// takePlace takes the search's place before a walk, once: a rate_limited
// error when every place is taken. A search runs in one goroutine, so its
// place needs no lock.
func takePlace(ctx context.Context) error {
	p, ok := ctx.Value(placeKey{}).(*place)
	if !ok || p.leave != nil {
		return nil
	}
	leave, err := p.l.Enter(p.viewer)
	if err != nil {
		return err
	}
	p.leave = leave
	return nil
}
