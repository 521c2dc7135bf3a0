package hydrate_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/synth"
)

// synthDB returns a database holding a synthetic network of the given
// number of members (internal/synth, seed seed).
func synthDB(tb testing.TB, members int, seed int64) *sqlx.DB {
	tb.Helper()
	db := pgtest.New(tb)
	cfg := synth.Config{Scale: synth.ForMembers(members), Seed: seed, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := synth.Generate(context.Background(), db.DB, cfg); err != nil {
		tb.Fatal(err)
	}
	return db
}

// benchPage loads a synthetic network (internal/synth, 500 members, 50,000
// posts) and returns a member with a busy home timeline and the ids of its
// first page: 20 posts of the members it follows, newest first.
func benchPage(b *testing.B) (*sqlx.DB, int64, []int64) {
	b.Helper()
	db := synthDB(b, 500, 1)
	ctx := context.Background()
	var viewer int64
	if err := db.GetContext(ctx, &viewer, `SELECT id FROM members ORDER BY following_count DESC, id LIMIT 1`); err != nil {
		b.Fatal(err)
	}
	var ids []int64
	const q = `
		SELECT p.id FROM posts p JOIN follows f ON f.followee_id = p.author_id AND f.follower_id = $1
		 WHERE p.visibility <> 'private' ORDER BY p.created_at DESC, p.id DESC LIMIT 20`
	if err := db.SelectContext(ctx, &ids, q, viewer); err != nil || len(ids) != 20 {
		b.Fatalf("page: %d ids, %v", len(ids), err)
	}
	return db, viewer, ids
}

// BenchmarkPage hydrates a page of 20 posts (Posts: one query with every
// static part cached, two without), and writes it as the list response:
// render and encode through the API's types (PostsAPI, encoding/json),
// which single-post answers outside GetPost still take, and append, from
// the posts' kept renderings (hydrate.PostList), which the list operations
// take; all is hydrate and append.
func BenchmarkPage(b *testing.B) {
	db, viewer, ids := benchPage(b)
	ctx := context.Background()
	urls := apiurl.URLs{Public: "https://social.example", API: "https://social.example/api/v1"}
	cache := hydrate.NewCache(1000)
	ps, err := cache.Posts(ctx, db, viewer, ids)
	if err != nil || len(ps) != len(ids) {
		b.Fatalf("Posts = %d posts, %v", len(ps), err)
	}
	next := "eyJ0IjoxNzcyMzY2NDAwMDAwMDAwLCJpIjo0MiwicSI6ImFiYyJ9"
	meta := gen.ListMeta{PerPage: 20, HasMore: true, NextCursor: &next}
	b.Run("hydrate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cache.Posts(ctx, db, viewer, ids); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hydrate-uncached", func(b *testing.B) {
		b.ReportAllocs()
		var none *hydrate.Cache
		for b.Loop() {
			if _, err := none.Posts(ctx, db, viewer, ids); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hydrate.PostsAPI(urls, ps)
		}
	})
	b.Run("encode", func(b *testing.B) {
		page := gen.PostList{Data: hydrate.PostsAPI(urls, ps), Meta: meta}
		out, _ := json.Marshal(page)
		b.SetBytes(int64(len(out)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	// appendPage writes posts as the list operations do (hydrate.PostList).
	appendPage := func(b *testing.B, posts []hydrate.Post) {
		page := hydrate.PostList{URLs: urls, Posts: posts, Meta: meta}
		rec := httptest.NewRecorder()
		if err := page.VisitListFeedResponse(rec); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(rec.Body.Len()))
		b.ReportAllocs()
		for b.Loop() {
			rec.Body.Reset()
			if err := page.VisitListFeedResponse(rec); err != nil {
				b.Fatal(err)
			}
		}
	}
	// append: from each post's kept rendering of its static members, as
	// for posts found in the cache (read again here, which marks them so).
	b.Run("append", func(b *testing.B) {
		cached, err := cache.Posts(ctx, db, viewer, ids)
		if err != nil {
			b.Fatal(err)
		}
		appendPage(b, cached)
	})
	// append-uncached: posts read once (not from a Cache), whose static
	// members are rendered on every write, as a member's older posts are.
	b.Run("append-uncached", func(b *testing.B) {
		var none *hydrate.Cache
		fresh, err := none.Posts(ctx, db, viewer, ids)
		if err != nil {
			b.Fatal(err)
		}
		appendPage(b, fresh)
	})
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ps, err := cache.Posts(ctx, db, viewer, ids)
			if err != nil {
				b.Fatal(err)
			}
			rec := httptest.NewRecorder()
			if err := (hydrate.PostList{URLs: urls, Posts: ps, Meta: meta}).VisitListFeedResponse(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
