// Package synth generates a synthetic social network for benchmarks: members
// with a skewed follow graph, a year of posts (media, polls, hashtags,
// mentions, all three visibilities), reactions, threaded comments,
// conversations, listings, jobs and the notifications those events leave.
//
// Everything is drawn from seeded generators, so one seed always gives the
// same network (timestamps are relative to Config.Now). Rows are streamed
// with COPY ... FREEZE inside one transaction that first drops the foreign
// keys and secondary indexes of the loaded tables and rebuilds them at the
// end, so an interrupted run leaves the database as it was. Every
// denormalised counter is computed from the rows it counts, so
// `socialapi check` passes afterwards.
//
// Each member has one read and one write token whose values Token derives
// from the seed and the member id: a load generator knows them without a
// list of secrets. Never load a synthetic data set next to real members.
package synth

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/timeline"
)

// Scale sets how much is generated.
type Scale struct {
	Name          string // "default", "small", "3x" or the member count
	Members       int
	FollowMedian  int // what a typical member follows
	Posts         int
	Reactions     int
	Comments      int
	Listings      int
	Jobs          int
	Conversations int
	Messages      int
	// NotifyDays is how far back events leave notifications (older ones are
	// taken as pruned, as services do), so notifications stay a few million.
	NotifyDays int
	// ActiveShare is the share of members who used the service in the last
	// day; the others (the least active posters) stopped 15 to 365 days
	// ago: they post nothing after that, their tokens were last used then,
	// and their home timelines are dormant (timeline.DormantAfter). Most
	// accounts of a public network are idle at any one time; 0.4 is on the
	// generous side.
	ActiveShare float64
}

// Default is the data set of the benchmark (issue 8).
var Default = Scale{
	Name: "default", Members: 10_000, FollowMedian: 150, Posts: 1_000_000, Reactions: 5_000_000,
	Comments: 1_000_000, Listings: 50_000, Jobs: 10_000, Conversations: 20_000, Messages: 500_000, NotifyDays: 60,
	ActiveShare: 0.4,
}

// ForMembers scales Default to n members: every count in proportion, the
// typical follow count shrinking below 2,000 members so that a small network
// is not a complete graph.
func ForMembers(n int) Scale {
	f := float64(n) / float64(Default.Members)
	sc := func(v int) int { return max(1, int(math.Round(float64(v)*f))) }
	return Scale{
		Name: strconv.Itoa(n), Members: n,
		FollowMedian: max(3, int(math.Round(float64(Default.FollowMedian)*math.Min(1, float64(n)/2000)))),
		Posts:        sc(Default.Posts), Reactions: sc(Default.Reactions), Comments: sc(Default.Comments),
		Listings: sc(Default.Listings), Jobs: sc(Default.Jobs), Conversations: sc(Default.Conversations),
		Messages: sc(Default.Messages), NotifyDays: Default.NotifyDays, ActiveShare: Default.ActiveShare,
	}
}

// ParseScale reads "default", "small" (1/50 of default), a multiple of
// default ("3x": 2x to 20x, every count multiplied, the typical follow
// count kept) or a member count (20 or more; everything else in
// proportion).
func ParseScale(s string) (Scale, error) {
	switch strings.ToLower(s) {
	case "", "default":
		return Default, nil
	case "small":
		sc := ForMembers(Default.Members / 50)
		sc.Name = "small"
		return sc, nil
	}
	if k, ok := strings.CutSuffix(strings.ToLower(s), "x"); ok {
		m, err := strconv.Atoi(k)
		if err != nil || m < 2 || m > 20 {
			return Scale{}, fmt.Errorf("a multiple of the default scale must be 2x to 20x, got %q", s)
		}
		sc := ForMembers(m * Default.Members)
		sc.Name = strconv.Itoa(m) + "x"
		return sc, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 20 || n > 10_000_000 {
		return Scale{}, fmt.Errorf("scale must be default, small, 2x to 20x or a member count from 20 to 10000000, got %q", s)
	}
	if n == Default.Members {
		return Default, nil
	}
	return ForMembers(n), nil
}

// Config is one generation run.
type Config struct {
	Scale Scale
	Seed  int64
	// Now anchors every timestamp (zero: the current time, to the second).
	Now time.Time
	// Logf receives progress lines (nil: none).
	Logf func(format string, args ...any)
}

// Summary is what Generate stored.
type Summary struct {
	Tables  []TableCount
	Elapsed time.Duration
	// The follow graph's shape.
	MaxFollowers, Over5000Followers, MedianFollowing, MedianFollowers int
}

// TableCount is the number of rows loaded into one table.
type TableCount struct {
	Table string
	Rows  int64
}

func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "generated in %s:", s.Elapsed.Round(time.Second))
	for _, t := range s.Tables {
		fmt.Fprintf(&b, " %s %d,", t.Table, t.Rows)
	}
	fmt.Fprintf(&b, " follow graph: median following %d, median followers %d, max followers %d, %d members with 5000+ followers",
		s.MedianFollowing, s.MedianFollowers, s.MaxFollowers, s.Over5000Followers)
	return b.String()
}

// Token is the token of the given scope of member memberID in the data set
// generated with seed.
func Token(seed, memberID int64, s auth.Scope) string {
	return auth.Derive(s, []byte("socialapi-synth:"+strconv.FormatInt(seed, 10)+":"+strconv.FormatInt(memberID, 10)+":"+string(s)))
}

// Generate fills an empty, migrated database with a synthetic network. It
// runs in one transaction (nothing is left behind on error) and ends with
// VACUUM ANALYZE of the loaded tables.
func Generate(ctx context.Context, db *sql.DB, cfg Config) (Summary, error) {
	start := time.Now()
	if cfg.Scale.Members < 20 {
		return Summary{}, fmt.Errorf("scale: at least 20 members, got %d", cfg.Scale.Members)
	}
	if cfg.Now.IsZero() {
		cfg.Now = time.Now().UTC().Truncate(time.Second)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	g := newGen(cfg)
	logf := func(format string, args ...any) {
		cfg.Logf("%6.1fs %s", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	g.members()
	g.follows()
	g.relations()
	g.postSkeleton()
	logf("drew %d members, %d follows, %d posts in memory", g.n, g.nFollows, len(g.pAuthor)-1)

	conn, err := db.Conn(ctx)
	if err != nil {
		return Summary{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return Summary{}, err
	}
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	for _, q := range []string{
		"SET LOCAL synchronous_commit = off",
		"SET LOCAL maintenance_work_mem = '1GB'",
		"SET LOCAL statement_timeout = 0",
		"SET LOCAL idle_in_transaction_session_timeout = 0",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return Summary{}, fmt.Errorf("%s: %w", q, err)
		}
	}
	d, err := prepare(ctx, conn)
	if err != nil {
		return Summary{}, err
	}
	logf("dropped %d foreign keys and %d secondary indexes, truncated %d tables", len(d.fkeys), len(d.indexes), len(loaded))

	var sum Summary
	load := func(table string, cols []string, fill func(w *rowWriter) error) error {
		n, err := copyIn(ctx, conn, table, cols, fill)
		if err != nil {
			return err
		}
		sum.Tables = append(sum.Tables, TableCount{Table: table, Rows: n})
		logf("%-26s %9d rows", table, n)
		return nil
	}
	steps := []func(load func(string, []string, func(*rowWriter) error) error) error{
		g.loadMembers, g.loadFollows, g.loadRelations, g.loadReactions, g.loadComments, g.loadPosts,
		g.loadConversations, g.loadNotifications, g.loadMarket, g.loadJobs,
	}
	if err := g.loadCategories(ctx, conn); err != nil {
		return Summary{}, err
	}
	for _, step := range steps {
		if err := step(load); err != nil {
			return Summary{}, err
		}
	}
	if err := d.restore(ctx, conn, logf); err != nil {
		return Summary{}, err
	}
	n, err := timeline.Rebuild(ctx, conn)
	if err != nil {
		return Summary{}, err
	}
	sum.Tables = append(sum.Tables, TableCount{Table: "timeline", Rows: n})
	logf("%-26s %9d rows", "timeline", n)
	// The idle members' timelines, built with the others, go dormant as the
	// server's worker would make them.
	dormant, err := timeline.RestAll(ctx, conn, cfg.Now.Add(-timeline.DormantAfter))
	if err != nil {
		return Summary{}, err
	}
	sum.Tables = append(sum.Tables, TableCount{Table: "timeline_dormant", Rows: dormant})
	logf("%-26s %9d rows", "timeline_dormant", dormant)
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return Summary{}, fmt.Errorf("commit: %w", err)
	}
	committed = true
	logf("committed")
	for _, t := range append(loaded[:len(loaded):len(loaded)], "timeline", "timeline_horizons", "timeline_dormant") {
		if _, err := conn.ExecContext(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return Summary{}, fmt.Errorf("vacuum analyze %s: %w", t, err)
		}
	}
	logf("vacuumed and analyzed")
	sum.Elapsed = time.Since(start)
	sum.MaxFollowers, sum.Over5000Followers, sum.MedianFollowing, sum.MedianFollowers = g.graphStats()
	return sum, nil
}

// BenchNetwork generates into db the network the Go benchmarks read (500
// members, 50,000 posts, seed 1) and returns its busiest reader: the active
// member (their timeline not dormant) who follows the most.
func BenchNetwork(ctx context.Context, db *sql.DB) (reader int64, err error) {
	cfg := Config{Scale: ForMembers(500), Seed: 1, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := Generate(ctx, db, cfg); err != nil {
		return 0, err
	}
	const q = `SELECT m.id FROM members m
		WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = m.id)
		ORDER BY m.following_count DESC, m.id LIMIT 1`
	err = db.QueryRowContext(ctx, q).Scan(&reader)
	return reader, err
}
