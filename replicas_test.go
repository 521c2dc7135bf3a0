package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestReplicaReadYourWrites runs two server processes over one primary and
// a real hot standby that replays late (pgtest.ReplicaURL), reached through
// a TCP proxy the test can cut:
//   - a member writes a post on one instance and reads it at once on the
//     other, 1,000 times: never a stale read (read-your-writes);
//   - another member's reads are served by the replica (the routed-reads
//     metric), without one failing;
//   - the replica goes away mid-reads: every read still succeeds, /readyz
//     says it is unreachable; it comes back and serves reads again.
func TestReplicaReadYourWrites(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t)
	replicaURL := pgtest.ReplicaURL(t, dsn)
	if d := pgtest.ReplicaDelayOf(t, replicaURL); d < 100*time.Millisecond {
		t.Fatalf("the test standby replays %s late; this test needs at least 100ms (recovery_min_apply_delay) to catch a stale read", d)
	}
	ru, err := url.Parse(replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startProxy(t, ru.Host)
	ru.Host = proxy.addr

	db, err := pg.Open(context.Background(), dsn, pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ids := pgtest.Members(t, db, "writer", "reader")
	tokens, tokenIDs := map[string]string{}, map[string]int64{}
	for h := range ids {
		tok, secret, err := auth.NewStore(db, nil).Create(context.Background(), auth.NewToken{Handle: h, Scope: auth.ScopeWrite})
		if err != nil {
			t.Fatal(err)
		}
		tokens[h], tokenIDs[h] = secret, tok.ID
	}

	bin := buildBinary(t)
	env := func() map[string]string {
		return map[string]string{"DATABASE_URL": dsn, "DATABASE_REPLICA_URLS": ru.String(), "REPLICA_MAX_LAG": "5s",
			"RATE_LIMIT_READ": "1000000", "RATE_LIMIT_WRITE": "1000000", "METRICS_ADDR": freeAddr(t)}
	}
	envA, envB := env(), env()
	a, b := startServer(t, bin, envA), startServer(t, bin, envB)
	metricsA := "http://" + envA["METRICS_ADDR"] + "/metrics"
	name := pg.ReplicaName(ru.String())
	for _, base := range []string{a, b} {
		waitReady(t, base, name, "ok")
	}

	// Read-your-writes, across instances, 1,000 times.
	const rounds = 1000
	var lastID string
	stale := 0
	for i := range rounds {
		w, r := a, b
		if i%2 == 1 {
			w, r = b, a
		}
		status, body := apiCall(t, w, "POST", "/api/v1/posts", tokens["writer"], fmt.Sprintf(`{"body":"write %d"}`, i))
		if status != http.StatusCreated {
			t.Fatalf("create post %d: %d %s", i, status, body)
		}
		m := postID.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("create post %d: no id in %s", i, body)
		}
		lastID = m[1]
		if status, body := apiCall(t, r, "GET", "/api/v1/posts/"+lastID, tokens["writer"], ""); status != http.StatusOK {
			stale++
			if stale <= 3 {
				t.Errorf("round %d: the writer read their post %s on the other instance: %d %s", i, lastID, status, body)
			}
		}
	}
	if stale > 0 {
		t.Fatalf("%d of %d reads right after the reader's own write were stale", stale, rounds)
	}

	// Another member is served by the replica once it has the post.
	waitUntil(t, 10*time.Second, "the replica to replay the last post", func() bool {
		status, _ := apiCall(t, a, "GET", "/api/v1/posts/"+lastID, tokens["reader"], "")
		return status == http.StatusOK
	})
	waitReady(t, a, name, "ok")
	before := metric(t, metricsA, `socialapi_routed_reads_total{target="`+name+`"}`)
	fallbacks := metric(t, metricsA, `socialapi_replica_fallbacks_total`)
	// Every replica-eligible operation answers from the standby, and none
	// sends a statement there that fails (a write, say) to run again on the
	// primary.
	paths := []string{"/api/v1/posts/" + lastID, "/api/v1/posts/" + lastID + "/comments", "/api/v1/feed", "/api/v1/feed?tab=discover",
		"/api/v1/users/writer", "/api/v1/users/writer/posts", "/api/v1/notifications", "/api/v1/conversations",
		"/api/v1/market", "/api/v1/jobs", "/api/v1/search?q=write"}
	const rounds2 = 5
	reads := int64(rounds2 * len(paths))
	for range rounds2 {
		for _, path := range paths {
			if status, body := apiCall(t, a, "GET", path, tokens["reader"], ""); status != http.StatusOK {
				t.Fatalf("reader %s: %d %s", path, status, body)
			}
		}
	}
	if got := metric(t, metricsA, `socialapi_routed_reads_total{target="`+name+`"}`) - before; got != reads {
		t.Errorf("%d of the reader's %d reads went to the replica, want all", got, reads)
	}
	if got := metric(t, metricsA, `socialapi_replica_fallbacks_total`) - fallbacks; got != 0 {
		t.Errorf("%d reads failed on the replica and ran again on the primary, want none", got)
	}
	if lag := metric(t, metricsA, `socialapi_replica_lag_seconds{replica="`+name+`"}`); lag > 5 {
		t.Errorf("replica lag = %ds, want within REPLICA_MAX_LAG", lag)
	}

	// The replica goes away mid-reads: no read fails; it is skipped, then
	// used again once it answers.
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := map[int]int{}
	stop := make(chan struct{})
	for _, base := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, path := range []string{"/api/v1/posts/" + lastID, "/api/v1/feed", "/api/v1/users/writer/posts"} {
					if status, _ := apiCall(t, base, "GET", path, tokens["reader"], ""); status != http.StatusOK {
						mu.Lock()
						failed[status]++
						mu.Unlock()
					}
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond) // reads on the replica are under way (not an assertion)
	proxy.cut()
	for _, base := range []string{a, b} {
		waitReady(t, base, name, "unreachable")
	}
	time.Sleep(300 * time.Millisecond) // reads go on without it
	close(stop)
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("reads failed while the replica went away: %v (status → count)", failed)
	}
	proxy.restore(t)
	for _, base := range []string{a, b} {
		waitReady(t, base, name, "ok")
	}
	before = metric(t, metricsA, `socialapi_routed_reads_total{target="`+name+`"}`)
	if status, body := apiCall(t, a, "GET", "/api/v1/posts/"+lastID, tokens["reader"], ""); status != http.StatusOK {
		t.Fatalf("reader after the replica returned: %d %s", status, body)
	}
	if metric(t, metricsA, `socialapi_routed_reads_total{target="`+name+`"}`) != before+1 {
		t.Errorf("the replica serves no reads after it returned")
	}

	// A revoked token fails from the next request on, though the replica
	// that would serve the read has not replayed the revocation yet.
	if _, err := auth.NewStore(db, nil).Revoke(context.Background(), tokenIDs["reader"]); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{a, b} {
		if status, body := apiCall(t, base, "GET", "/api/v1/posts/"+lastID, tokens["reader"], ""); status != http.StatusUnauthorized {
			t.Errorf("%s: a read with the token just revoked: %d %s, want 401", base, status, body)
		}
	}
}

// postID finds a created post's id: the first in its body.
var postID = regexp.MustCompile(`"id":\s*"?([0-9]+)`)

// apiCall sends one API request with a bearer token and returns the status
// and body.
func apiCall(t *testing.T, base, method, path, token, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitReady polls base's /readyz until the replica name has state.
func waitReady(t *testing.T, base, name, state string) {
	t.Helper()
	waitUntil(t, 15*time.Second, fmt.Sprintf("%s /readyz to show replica %s %s", base, name, state), func() bool {
		var body struct {
			Ready    bool              `json:"ready"`
			Replicas map[string]string `json:"replicas"`
		}
		if err := json.Unmarshal([]byte(readyBody(t, base)), &body); err != nil {
			t.Fatal(err)
		}
		// A replica's state never makes the instance unready.
		return body.Ready && strings.HasPrefix(body.Replicas[name], state)
	})
}

func waitUntil(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metric reads one series of a Prometheus text page (0 when absent).
func metric(t *testing.T, page, series string) int64 {
	t.Helper()
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(v)
}

// tcpProxy forwards connections to a server; cut closes it and every
// connection through it (the server seems gone), restore listens again on
// the same address.
type tcpProxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        map[net.Conn]bool
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{addr: freeAddr(t), target: target, conns: map[net.Conn]bool{}}
	p.restore(t)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) restore(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port was just ours; a moment may pass before it is free again
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *tcpProxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); s.Close() }()
	_, _ = io.Copy(c, s)
	c.Close()
}

func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}
