package synth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/synth"
)

func TestParseScale(t *testing.T) {
	for _, tt := range []struct {
		in      string
		members int
		posts   int
	}{
		{"default", 10_000, 1_000_000}, {"", 10_000, 1_000_000}, {"small", 200, 20_000}, {"1000", 1000, 100_000},
		{"3x", 30_000, 3_000_000}, {"3X", 30_000, 3_000_000},
	} {
		t.Run(tt.in, func(t *testing.T) {
			sc, err := synth.ParseScale(tt.in)
			if err != nil || sc.Members != tt.members || sc.Posts != tt.posts || sc.FollowMedian != synth.Default.FollowMedian && sc.Members >= 2000 {
				t.Errorf("ParseScale(%q) = %d members, %d posts, %v, want %d, %d", tt.in, sc.Members, sc.Posts, err, tt.members, tt.posts)
			}
		})
	}
	for _, bad := range []string{"huge", "10", "-5", "1.5", "1x", "21x", "x", "2.5x"} {
		t.Run(bad, func(t *testing.T) {
			if _, err := synth.ParseScale(bad); err == nil {
				t.Errorf("ParseScale(%q) = nil error, want one", bad)
			}
		})
	}
}

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func generate(t *testing.T, seedValue int64) string {
	t.Helper()
	db := pgtest.New(t)
	sc := synth.ForMembers(60)
	if _, err := synth.Generate(context.Background(), db.DB, synth.Config{Scale: sc, Seed: seedValue, Now: now}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	// A fingerprint of the content, for the determinism test.
	var fp string
	const q = `SELECT md5(string_agg(x, '|' ORDER BY x)) FROM (
		SELECT 'p' || id || author_id || body || visibility || created_at || like_count || comment_count FROM posts
		UNION ALL SELECT 'r' || post_id || ':' || member_id || type FROM reactions
		UNION ALL SELECT 'c' || id || post_id || body || COALESCE(parent_id, 0) FROM comments
		UNION ALL SELECT 'n' || id || recipient_id || type || created_at FROM notifications
		UNION ALL SELECT 'm' || id || conversation_id || body FROM messages) s(x)`
	if err := db.GetContext(context.Background(), &fp, q); err != nil {
		t.Fatal(err)
	}
	checkDataset(t, db.DB, seedValue)
	return fp
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	a := generate(t, 7)
	if b := generate(t, 7); b != a {
		t.Errorf("two runs with seed 7 differ: %s vs %s", a, b)
	}
	if c := generate(t, 8); c == a {
		t.Errorf("seeds 7 and 8 gave the same data set")
	}
}

func TestGenerateRefusesNonEmpty(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	cfg := synth.Config{Scale: synth.ForMembers(30), Seed: 1, Now: now}
	if _, err := synth.Generate(ctx, db.DB, cfg); err != nil {
		t.Fatal(err)
	}
	var before int
	if err := db.GetContext(ctx, &before, "SELECT count(*) FROM posts"); err != nil {
		t.Fatal(err)
	}
	_, err := synth.Generate(ctx, db.DB, cfg)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("second Generate = %v, want a not-empty error", err)
	}
	var after int
	if err := db.GetContext(ctx, &after, "SELECT count(*) FROM posts"); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("posts after a refused run = %d, want %d", after, before)
	}
}
