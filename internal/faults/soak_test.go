package faults_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// soakMix: mostly reads (home and discover feeds, posts, a member's posts,
// search, notifications), a tenth writes (posts, comments, reactions) and a
// few follow toggles, spread over all members.
func soakMix(f fixture) mix {
	n := len(f.tokens)
	return func(w, i int) request {
		k := (w*7919 + i) % n
		tok, post, other := f.tokens[k], f.posts[(k+i)%n], f.handles[(k+1+i%5)%n]
		switch i % 20 {
		case 0, 1, 2, 3, 4:
			return request{method: "GET", path: "/api/v1/feed?per_page=20", token: tok, kind: "read"}
		case 5, 6, 7:
			return request{method: "GET", path: "/api/v1/feed?tab=discover&per_page=20", token: tok, kind: "read"}
		case 8, 9, 10:
			return request{method: "GET", path: fmt.Sprintf("/api/v1/posts/%d", post), token: tok, kind: "read"}
		case 11, 12:
			return request{method: "GET", path: fmt.Sprintf("/api/v1/posts/%d/comments", post), token: tok, kind: "read"}
		case 13:
			return request{method: "GET", path: "/api/v1/users/" + other + "/posts", token: tok, kind: "read"}
		case 14:
			return request{method: "GET", path: "/api/v1/search?q=soak", token: tok, kind: "read"}
		case 15:
			return request{method: "GET", path: "/api/v1/notifications", token: tok, kind: "read"}
		case 16:
			key := fmt.Sprintf("soak post w%d n%d", w, i)
			return request{method: "POST", path: "/api/v1/posts", body: `{"body":"` + key + `"}`, token: tok, kind: "post", key: key}
		case 17:
			key := fmt.Sprintf("soak comment w%d n%d", w, i)
			return request{method: "POST", path: fmt.Sprintf("/api/v1/posts/%d/comments", post), body: `{"body":"` + key + `"}`, token: tok, kind: "comment", key: key}
		case 18:
			types := []string{"like", "love", "haha", "wow", "sad", "angry"}
			return request{method: "POST", path: fmt.Sprintf("/api/v1/posts/%d/react", post), body: `{"type":"` + types[i%6] + `"}`, token: tok, kind: "read"}
		default:
			return request{method: "POST", path: "/api/v1/users/" + other + "/follow", token: tok, kind: "read"}
		}
	}
}

// TestSoak (make soak) is a bounded loopback load test: SOAK_DURATION
// (default 2m) at SOAK_RATE requests per second (default 200) against one
// server process, sampling its RSS, goroutines, open file descriptors and
// database connections. It fails when they grow instead of staying flat,
// on any 5xx, or when `socialapi check` finds a counter that differs from
// its rows. Skipped unless SOAK_DURATION is set (it is not part of CI).
func TestSoak(t *testing.T) {
	v := os.Getenv("SOAK_DURATION")
	if v == "" {
		t.Skip("set SOAK_DURATION (make soak) to run the soak test")
	}
	dur, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("SOAK_DURATION: %v", err)
	}
	rate := 200
	if r := os.Getenv("SOAK_RATE"); r != "" {
		if rate, err = strconv.Atoi(r); err != nil || rate <= 0 {
			t.Fatalf("SOAK_RATE: %q", r)
		}
	}
	c, db, f := seededCluster(t, 50)
	env := serverEnv(c.URL("social", appName))
	env["REQUEST_TIMEOUT"] = "5s"
	s := startServer(t, env)
	s.waitStatus("/readyz", 200, 10*time.Second)

	ticker := time.NewTicker(time.Second / time.Duration(rate))
	defer ticker.Stop()
	l := newLoad(t, s.base, 5*time.Second, 16, soakMix(f))
	l.pace = ticker.C
	l.setPhase("soak")
	l.start()

	type sample struct {
		at                         time.Duration
		rssMB, goroutines, fds     float64
		poolOpen, sessions, served float64
	}
	var samples []sample
	every := max(dur/24, time.Second)
	start := time.Now()
	t.Logf("%8s %8s %10s %6s %9s %9s %9s", "t", "RSS MB", "goroutines", "fds", "pool open", "sessions", "requests")
	for time.Since(start) < dur {
		time.Sleep(every)
		total, _ := sessions(t, db)
		smp := sample{
			at: time.Since(start).Round(time.Second), rssMB: rss(t, s.pid()), goroutines: s.metric("go_goroutines"),
			fds: s.metric("process_open_fds"), poolOpen: s.metric("go_sql_open_connections"), sessions: float64(total),
		}
		l.mu.Lock()
		smp.served = float64(len(l.durations))
		l.mu.Unlock()
		samples = append(samples, smp)
		t.Logf("%8s %8.1f %10.0f %6.0f %9.0f %9.0f %9.0f", smp.at, smp.rssMB, smp.goroutines, smp.fds, smp.poolOpen, smp.sessions, smp.served)
	}
	l.stop()
	l.check()
	ds := slices.Clone(l.durations)
	slices.Sort(ds)
	if len(ds) > 0 {
		t.Logf("%d requests in %s (%.0f/s): p50 %s, p99 %s, max %s", len(ds), dur, float64(len(ds))/dur.Seconds(),
			ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*99/100].Round(time.Microsecond), ds[len(ds)-1].Round(time.Millisecond))
	}

	// Flat: the last third of the run may not exceed the first third (after
	// the first sample, which includes warm-up) by more than a margin.
	if len(samples) >= 6 {
		third := len(samples) / 3
		peak := func(ss []sample, f func(sample) float64) float64 {
			m := 0.0
			for _, s := range ss {
				m = max(m, f(s))
			}
			return m
		}
		early, late := samples[1:third+1], samples[len(samples)-third:]
		for _, m := range []struct {
			name  string
			f     func(sample) float64
			slack float64
		}{
			{"RSS MB", func(s sample) float64 { return s.rssMB }, 20},
			{"goroutines", func(s sample) float64 { return s.goroutines }, 20},
			{"open fds", func(s sample) float64 { return s.fds }, 20},
			{"pool connections", func(s sample) float64 { return s.poolOpen }, 0},
			{"database sessions", func(s sample) float64 { return s.sessions }, 0},
		} {
			t.Run(m.name, func(t *testing.T) {
				e, lt := peak(early, m.f), peak(late, m.f)
				verdict := "flat"
				if lt > e*1.2+m.slack {
					verdict = "GROWING"
					t.Errorf("%s grew: early peak %.1f, late peak %.1f", m.name, e, lt)
				}
				t.Logf("%-18s early peak %8.1f  late peak %8.1f  %s", m.name, e, lt, verdict)
			})
		}
	}
	cmd := exec.Command(serverBinary(t), "check")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+c.URL("social", "check"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("socialapi check after the soak: %v\n%s", err, out)
	}
}

// rss is the resident set size of process pid, in MiB.
func rss(t testing.TB, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read RSS: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
