package feed_test

import (
	"context"
	"testing"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/feed"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/synth"
)

// BenchmarkStore reads timelines of a synthetic network (internal/synth,
// 500 members, 50,000 posts) through the store, page selection and
// hydration included: the home feed of its busiest reader (synth.BenchNetwork; first page and
// page 5) and discover.
func BenchmarkStore(b *testing.B) {
	db := pgtest.New(b)
	ctx := context.Background()
	viewer, err := synth.BenchNetwork(ctx, db.DB)
	if err != nil {
		b.Fatal(err)
	}
	st := feed.NewStore(db)
	// The position after four pages, as a client holding cursors would reach it.
	var deep *cursor.Position
	for range 4 {
		_, next, err := st.Home(ctx, viewer, deep, 20)
		if err != nil || next == nil {
			b.Fatalf("Home: next %v, %v", next, err)
		}
		deep = next
	}
	for _, bb := range []struct {
		name string
		read func() error
	}{
		{"home", func() error { _, _, err := st.Home(ctx, viewer, nil, 20); return err }},
		{"home_page5", func() error { _, _, err := st.Home(ctx, viewer, deep, 20); return err }},
		{"discover", func() error { _, _, err := st.Discover(ctx, viewer, nil, 20); return err }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bb.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
