package faults_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FAULT-07: clients that give up cancel their queries. Every request waits
// on a lock the test holds (the request budget is 30 s, so only the client
// can end it); each client disconnects after 1 s; 1.5 s later no
// query of the server is left running or waiting in pg_stat_activity, while
// the lock is still held, and the server's goroutines are back to baseline.
func TestClientDisconnectCancelsQuery(t *testing.T) {
	t.Parallel()
	c, db, f := seededCluster(t, 1)
	env := serverEnv(c.URL("social", appName))
	env["REQUEST_TIMEOUT"] = "30s"
	s := startServer(t, env)
	s.waitStatus("/readyz", 200, 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	g0 := s.metric("go_goroutines")

	tx, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	done := make(chan struct{})
	for range 10 {
		go func() {
			defer func() { done <- struct{}{} }()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/api/v1/feed", nil)
			req.Header.Set("Authorization", "Bearer "+f.tokens[0])
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
				t.Errorf("request answered %d while the lock was held", resp.StatusCode)
			}
		}()
	}
	seen := 0
	for start := time.Now(); seen == 0 && time.Since(start) < 900*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		_, seen = sessions(t, db)
	}
	if seen == 0 {
		t.Errorf("no query of the server waits on the lock: the test tests nothing")
	}
	for range 10 {
		<-done
	}
	var waiting, active int
	for start := time.Now(); time.Since(start) < 1500*time.Millisecond; time.Sleep(100 * time.Millisecond) {
		if err := db.Get(&waiting, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, appName); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			break
		}
		active = waiting
	}
	if waiting != 0 {
		t.Errorf("%d queries of the server still running 1.5 s after their clients left (lock still held)", waiting)
	}
	t.Logf("queries left running after the disconnects: %d (peak seen %d)", waiting, active)
	var g float64
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(100 * time.Millisecond) {
		if g = s.metric("go_goroutines"); g <= g0+3 {
			break
		}
	}
	if g > g0+3 {
		t.Errorf("goroutines %.0f, baseline %.0f", g, g0)
	}
}

// SIZE-05: slow clients (slowloris) are cut off by the server's
// ReadHeaderTimeout (5 s) while normal requests keep being served.
func TestSlowClientsCutOff(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	s := startServer(t, serverEnv(c.URL("social", appName)))
	addr := s.base[len("http://"):]
	const n = 20
	closed := make(chan time.Duration, n)
	start := time.Now()
	for range n {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = conn.SetReadDeadline(time.Now().Add(12 * time.Second))
			_, _ = bufio.NewReader(conn).ReadString(0) // until the server closes (or the deadline)
			closed <- time.Since(start)
		}()
	}
	for range 5 {
		t0 := time.Now()
		if st, err := s.status("/healthz"); st != 200 || time.Since(t0) > 500*time.Millisecond {
			t.Errorf("/healthz during the slow clients: %d %v after %s", st, err, time.Since(t0))
		}
		time.Sleep(500 * time.Millisecond)
	}
	for range n {
		if d := <-closed; d > 7*time.Second {
			t.Fatalf("a slow client kept its connection %s, want it closed at the 5 s ReadHeaderTimeout", d.Round(time.Millisecond))
		}
	}
}

// SIZE-06: a client that announces a 10,000-byte body and trickles it at one
// byte per second is cut off at the server's ReadTimeout (15 s for the whole
// request), not served for 10,000 s; requests keep being served meanwhile.
func TestTrickledBodyCutOff(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	db := c.open("social")
	f := seed(t, db, 1)
	db.Close()
	s := startServer(t, serverEnv(c.URL("social", appName)))
	s.waitStatus("/readyz", 200, 10*time.Second)
	conn, err := net.Dial("tcp", s.base[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	head := "POST /api/v1/posts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + f.tokens[0] +
		"\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	closed := make(chan time.Duration, 1)
	go func() {
		_ = conn.SetReadDeadline(time.Now().Add(25 * time.Second))
		_, _ = io.Copy(io.Discard, conn) // until the server closes (or the deadline)
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	sent := 1
	for {
		select {
		case d := <-closed:
			if d < 14*time.Second || d > 17*time.Second {
				t.Fatalf("connection ended after %s (%d body bytes sent), want it cut at the 15 s ReadTimeout", d.Round(time.Millisecond), sent)
			}
			t.Logf("trickled body cut off after %s, %d of 10000 bytes sent", d.Round(time.Millisecond), sent)
			return
		case <-tick.C:
			if sent%5 == 0 {
				if st, err := s.status("/healthz"); st != 200 {
					t.Errorf("/healthz during the trickle: %d %v", st, err)
				}
			}
			if _, err := conn.Write([]byte(" ")); err == nil {
				sent++
			}
		}
	}
}
