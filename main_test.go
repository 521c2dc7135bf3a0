package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/ratelimit"
)

// cli runs the binary's command tree in process with env as its environment.
func cli(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(func(k string) string { return env[k] }, &out, &errb)
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestCLI(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}

	if _, _, err := cli(t, env, "member", "create", "--handle", "alice", "--name", "Alice", "--verified", "--bio", "hi"); err != nil {
		t.Fatalf("member create: %v", err)
	}
	out, _, err := cli(t, env, "token", "create", "--handle", "ALICE", "--scope", "write", "--name", "laptop")
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	tok := strings.TrimSpace(out)
	if s, ok := auth.Parse(tok); !ok || s != auth.ScopeWrite || strings.Count(out, "\n") != 1 {
		t.Fatalf("token create printed %q, want one write token alone", out)
	}
	out, _, err = cli(t, env, "token", "list", "--handle", "alice")
	if err != nil || !strings.Contains(out, "laptop") || strings.Contains(out, tok) {
		t.Fatalf("token list = %q, %v (must show the token without its value)", out, err)
	}
	id := regexp.MustCompile(`(?m)^([0-9]+) `).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no id in %q", out)
	}
	if out, _, err = cli(t, env, "token", "revoke", id[1]); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke = %q, %v", out, err)
	}

	bad := [][]string{
		{"member", "create", "--handle", "alice", "--name", "Again"}, // taken (case-insensitive)
		{"member", "create", "--handle", "ALICE", "--name", "Again"}, // taken
		{"member", "create", "--handle", "no spaces", "--name", "X"}, // bad handle
		{"member", "create", "--name", "X"},                          // missing flag
		{"token", "create", "--handle", "alice", "--scope", "admin"}, // bad scope
		{"token", "create", "--handle", "nobody", "--scope", "read"}, // unknown member
		{"token", "create", "--handle", "alice", "--scope", "read", "--expires", "-1h"},
		{"token", "revoke", "abc"},
		{"token", "revoke", "999999"},
		{"migrate", "sideways"},
		{"seed", "--file", "/nonexistent.json"},
	}
	for _, args := range bad {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, _, err := cli(t, env, args...); err == nil {
				t.Errorf("%v: succeeded, want an error", args)
			}
		})
	}
	out, _, _ = cli(t, env, "token", "list", "--handle", "alice")
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("after failed commands token list has %d lines, want header + 1 token:\n%s", n, out)
	}
	if _, _, err := cli(t, env, "check"); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestCLISuspend: member suspend and unsuspend write the member's state and
// its record; their errors (a suspended member suspended, a member not
// suspended unsuspended, no or a bad reason, an unknown handle, no handle)
// exit non-zero and write nothing.
func TestCLISuspend(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	if _, _, err := cli(t, env, "member", "create", "--handle", "alice", "--name", "Alice"); err != nil {
		t.Fatalf("member create: %v", err)
	}
	db, err := sqlx.Open("postgres", env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// state is alice's suspended_at, and her records (reason and lift reason).
	state := func() string {
		t.Helper()
		var s string
		const q = `SELECT COALESCE(m.suspended_at::text, '-') || ' ' ||
		                  COALESCE((SELECT string_agg(reason || '/' || COALESCE(lift_reason, '-'), ',' ORDER BY id)
		                              FROM member_suspensions WHERE member_id = m.id), '-')
		             FROM members m WHERE handle = 'alice'`
		if err := db.Get(&s, q); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	if !strings.HasPrefix(before, "- -") {
		t.Fatalf("before: %s", before)
	}
	fails := func(args ...string) {
		t.Helper()
		was := state()
		if _, _, err := cli(t, env, args...); err == nil {
			t.Errorf("%v: succeeded, want an error", args)
		} else if describe(err) == "" {
			t.Errorf("%v: an error without a message", args)
		}
		if now := state(); now != was {
			t.Errorf("%v wrote: %s, then %s", args, was, now)
		}
	}
	fails("member", "unsuspend", "alice", "--reason", "not suspended")
	fails("member", "suspend", "alice")
	fails("member", "suspend", "alice", "--reason", "")
	fails("member", "suspend", "alice", "--reason", "  ")
	fails("member", "suspend", "alice", "--reason", strings.Repeat("x", 1001))
	fails("member", "suspend", "nobody", "--reason", "spam")
	fails("member", "suspend", "--reason", "spam")
	fails("member", "suspend", "alice", "bob", "--reason", "spam")

	out, _, err := cli(t, env, "member", "suspend", "ALICE", "--reason", "spam")
	if err != nil || !strings.Contains(out, "suspended member") || !strings.Contains(out, "@alice") {
		t.Fatalf("member suspend = %q, %v", out, err)
	}
	if s := state(); strings.HasPrefix(s, "-") || !strings.HasSuffix(s, " spam/-") {
		t.Errorf("after suspend: %s", s)
	}
	fails("member", "suspend", "alice", "--reason", "again")
	fails("member", "unsuspend", "alice")

	out, _, err = cli(t, env, "member", "unsuspend", "alice", "--reason", "appeal granted")
	if err != nil || !strings.Contains(out, "unsuspended member") {
		t.Fatalf("member unsuspend = %q, %v", out, err)
	}
	if s := state(); s != "- spam/appeal granted" {
		t.Errorf("after unsuspend: %s", s)
	}
	fails("member", "unsuspend", "alice", "--reason", "again")
	if _, _, err := cli(t, env, "check"); err != nil {
		t.Errorf("check: %v", err)
	}
}

func TestSeedRejectsWholeFixture(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	f := filepath.Join(t.TempDir(), "bad.json")
	doc := `{"members":[{"handle":"ann","name":"Ann"}],"posts":[{"key":"p1","author":"ann","body":"hi"},{"key":"p2","author":"zed","body":"x"}]}`
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := cli(t, env, "seed", "--file", f)
	if err == nil || !strings.Contains(describe(err), "posts[1].author") {
		t.Fatalf("seed bad fixture: err = %v, want it to name posts[1].author", err)
	}
	// Nothing half-imported: the valid member of the same file is absent.
	if _, _, err := cli(t, env, "token", "list", "--handle", "ann"); err == nil {
		t.Error("member ann exists after a rejected fixture")
	}
}

func TestSeedDemoAndCheck(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	if _, stderr, err := cli(t, env, "seed"); err != nil || !strings.Contains(stderr, "imported 8 members") {
		t.Fatalf("seed = %q, %v", stderr, err)
	}
	if out, _, err := cli(t, env, "seed", "--if-empty"); err != nil || !strings.Contains(out, "not seeding") {
		t.Fatalf("seed --if-empty = %q, %v", out, err)
	}
	if out, _, err := cli(t, env, "check"); err != nil {
		t.Fatalf("check after demo seed: %v\n%s", err, out)
	}
}

// RATE_LIMIT_WINDOW is resolved here, once: the default is the contract's
// window and a window that is not positive is refused, so the limiter is
// always handed a final value.
func TestRateWindowResolved(t *testing.T) {
	t.Parallel()
	if c, err := loadConfig(func(string) string { return "" }); err != nil || c.RateWindow != ratelimit.DefaultWindow {
		t.Errorf("default RATE_LIMIT_WINDOW = %v, %v; want %v", c.RateWindow, err, ratelimit.DefaultWindow)
	}
	for _, v := range []string{"0", "-1m", "soon"} {
		t.Run(v, func(t *testing.T) {
			if _, err := loadConfig(func(k string) string { return map[string]string{"RATE_LIMIT_WINDOW": v}[k] }); err == nil {
				t.Errorf("RATE_LIMIT_WINDOW=%s accepted", v)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(func(k string) string { return map[string]string{"ADDR": ":9090"}[k] })
	if err != nil || c.PublicURL != "http://localhost:9090" || c.BodyLimit != 64<<10 || c.ReadPerMinute != 120 || c.StatementTimeout != 5*time.Second || c.PostCacheEntries != 50_000 || c.CoalesceSlots != 2 ||
		c.SearchCacheTTL != 10*time.Second || c.DormantAfter != 14*24*time.Hour || c.ViewsFlushEvery != 10*time.Second || c.FanOutHelpers != 1 || c.TrimEvery != 5*time.Minute || c.MaxActive != min(16, 4*runtime.GOMAXPROCS(0)) {
		t.Errorf("defaults = %+v, %v", c, err)
	}
	for _, env := range []map[string]string{
		{"PUBLIC_URL": "example.com"}, {"PUBLIC_URL": "https://x.example/?a=1"}, {"PUBLIC_URL": "ftp://x.example"}, {"PUBLIC_URL": "https://x.example/" + strings.Repeat("a", 200)},
		{"LOG_FORMAT": "xml"}, {"BODY_LIMIT_BYTES": "0"}, {"REQUEST_TIMEOUT": "soon"}, {"RATE_LIMIT_READ": "-5"},
		{"DB_STATEMENT_TIMEOUT": "-1s"}, {"DB_STATEMENT_TIMEOUT": "5"}, {"DB_STATEMENT_TIMEOUT": "10us"},
		{"POST_CACHE_ENTRIES": "-1"}, {"POST_CACHE_ENTRIES": "many"}, {"DB_COALESCE_SLOTS": "-1"},
		{"SEARCH_CACHE_TTL": "-1s"}, {"SEARCH_CACHE_TTL": "10"}, {"TIMELINE_DORMANT_AFTER": "-1h"}, {"TIMELINE_FANOUT_HELPERS": "-1"}, {"TIMELINE_FANOUT_HELPERS": "65"}, {"TIMELINE_DORMANT_AFTER": "2w"},
		{"VIEWS_FLUSH_INTERVAL": "0"}, {"VIEWS_FLUSH_INTERVAL": "10"}, {"VIEWS_FLUSH_INTERVAL": "-1s"},
		{"TIMELINE_TRIM_INTERVAL": "0"}, {"TIMELINE_TRIM_INTERVAL": "5"}, {"TIMELINE_TRIM_INTERVAL": "-1m"},
		{"DATABASE_REPLICA_URLS": "mysql://r1/db"}, {"DATABASE_REPLICA_URLS": "postgres:///db"}, {"DATABASE_REPLICA_URLS": "r1:5432"},
		{"DATABASE_REPLICA_URLS": "postgres://r1:5432/db, postgres://u:p@r1:5432/db"},
		{"REPLICA_MAX_LAG": "0"}, {"REPLICA_MAX_LAG": "5"}, {"REPLICA_MAX_LAG": "-1s"},
	} {
		t.Run(fmt.Sprint(env), func(t *testing.T) {
			if _, err := loadConfig(func(k string) string { return env[k] }); err == nil {
				t.Errorf("loadConfig(%v) accepted", env)
			}
		})
	}
	// durations checks that name=v loads as cases[v], read by field.
	durations := func(name string, field func(Config) time.Duration, cases map[string]time.Duration) {
		for v, want := range cases {
			t.Run(name+"="+v, func(t *testing.T) {
				if c, err := loadConfig(func(k string) string { return map[string]string{name: v}[k] }); err != nil || field(c) != want {
					t.Errorf("%s=%s: %v, %v; want %v", name, v, field(c), err, want)
				}
			})
		}
	}
	if c.ReplicaURLs != nil || c.ReplicaMaxLag != 5*time.Second {
		t.Errorf("replica defaults = %v, %v; want none and 5s", c.ReplicaURLs, c.ReplicaMaxLag)
	}
	if c, err := loadConfig(func(k string) string {
		return map[string]string{"DATABASE_REPLICA_URLS": " postgres://r1:5432/social?sslmode=disable,, postgresql://u:p@r2/social ", "REPLICA_MAX_LAG": "750ms"}[k]
	}); err != nil || len(c.ReplicaURLs) != 2 || c.ReplicaURLs[1] != "postgresql://u:p@r2/social" || c.ReplicaMaxLag != 750*time.Millisecond {
		t.Errorf("DATABASE_REPLICA_URLS with two: %q, %v, %v", c.ReplicaURLs, c.ReplicaMaxLag, err)
	}
	durations("DB_STATEMENT_TIMEOUT", func(c Config) time.Duration { return c.StatementTimeout },
		map[string]time.Duration{"0": 0, "250ms": 250 * time.Millisecond})
	if c, err := loadConfig(func(k string) string { return map[string]string{"TIMELINE_TRIM_INTERVAL": "5s"}[k] }); err != nil || c.TrimEvery != 5*time.Second {
		t.Errorf("TIMELINE_TRIM_INTERVAL=5s: %v, %v", c.TrimEvery, err)
	}
	durations("SEARCH_CACHE_TTL", func(c Config) time.Duration { return c.SearchCacheTTL },
		map[string]time.Duration{"0": 0, "2m": 2 * time.Minute})
	if c, err := loadConfig(func(k string) string { return map[string]string{"VIEWS_FLUSH_INTERVAL": "250ms"}[k] }); err != nil || c.ViewsFlushEvery != 250*time.Millisecond {
		t.Errorf("VIEWS_FLUSH_INTERVAL=250ms: %v, %v", c.ViewsFlushEvery, err)
	}
	for _, tt := range []struct{ conns, cpus, want int64 }{{16, 2, 8}, {16, 8, 16}, {4, 2, 4}, {100, 1, 4}} {
		t.Run(fmt.Sprintf("%d conns %d CPUs", tt.conns, tt.cpus), func(t *testing.T) {
			if got := defaultActive(tt.conns, int(tt.cpus)); got != tt.want {
				t.Errorf("defaultActive(%d conns, %d CPUs) = %d, want %d", tt.conns, tt.cpus, got, tt.want)
			}
		})
	}
	// The concurrency formula, on 1, 2 and 16 CPUs: on this project's
	// 2-core machine it gives what the constants gave before it.
	for _, tt := range []struct{ cpus, slots, helpers, conns, active int64 }{
		{1, 2, 1, 16, 4}, {2, 2, 1, 16, 8}, {16, 16, 8, 90, 64}, {64, 64, 32, 354, 256},
	} {
		t.Run(fmt.Sprintf("concurrency on %d CPUs", tt.cpus), func(t *testing.T) {
			cpus := int(tt.cpus)
			slots, helpers := defaultSlots(cpus), defaultHelpers(cpus)
			conns := defaultConns(cpus, slots, helpers)
			if got := [4]int64{slots, helpers, conns, defaultActive(conns, cpus)}; got != [4]int64{tt.slots, tt.helpers, tt.conns, tt.active} {
				t.Errorf("slots, helpers, conns, active = %v, want %v", got, [4]int64{tt.slots, tt.helpers, tt.conns, tt.active})
			}
			if tt.active+tt.slots+tt.helpers+2 > tt.conns {
				t.Errorf("the pool (%d) cannot hold what the gate, the slots and the fan-out use at once", tt.conns)
			}
		})
	}
	if c, err := loadConfig(func(string) string { return "" }); err != nil {
		t.Fatal(err)
	} else if cpus := runtime.GOMAXPROCS(0); c.CoalesceSlots != int(defaultSlots(cpus)) || c.FanOutHelpers != int(defaultHelpers(cpus)) ||
		c.DBMaxConns != int(defaultConns(cpus, defaultSlots(cpus), defaultHelpers(cpus))) || c.MaxActive != int(defaultActive(int64(c.DBMaxConns), cpus)) {
		t.Errorf("defaults on %d CPUs: slots %d, helpers %d, conns %d, active %d: not the formula's", cpus, c.CoalesceSlots, c.FanOutHelpers, c.DBMaxConns, c.MaxActive)
	}
	if c, err := loadConfig(func(k string) string { return map[string]string{"DB_MAX_CONNS": "6"}[k] }); err != nil || c.MaxActive > 6 {
		t.Errorf("DB_MAX_CONNS=6: MAX_ACTIVE_REQUESTS %d, %v; want at most the pool", c.MaxActive, err)
	}
	if c, err := loadConfig(func(k string) string { return map[string]string{"MAX_ACTIVE_REQUESTS": "0"}[k] }); err != nil || c.MaxActive != 0 {
		t.Errorf("MAX_ACTIVE_REQUESTS=0: %d, %v; want 0 (no bound)", c.MaxActive, err)
	}
	c, _ = loadConfig(func(k string) string { return map[string]string{"PUBLIC_URL": "https://social.example/"}[k] })
	if c.PublicURL != "https://social.example" {
		t.Errorf("PUBLIC_URL = %q, want trailing slash trimmed", c.PublicURL)
	}
}
