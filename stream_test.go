package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// The event stream (GET /api/v1/stream) on real server processes: what
// each event carries, resume, two instances, visibility at delivery,
// revocation and suspension, and the bounds.

// sse is an open event stream as a client reads it.
type sse struct {
	events chan sseEvent // closed when the stream ends
	resp   *http.Response
}

type sseEvent struct {
	ID, Name string
	Data     map[string]any
}

// openStream opens the stream of tok on base, resuming after last ("":
// not resuming), and fails the test unless it answers 200.
func openStream(t *testing.T, base, tok, last string) *sse {
	t.Helper()
	s, status := tryStream(t, base, tok, last)
	if status != http.StatusOK {
		t.Fatalf("GET /stream = %d, want 200", status)
	}
	return s
}

func tryStream(t *testing.T, base, tok, last string) (*sse, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	s := &sse{events: make(chan sseEvent, 1000), resp: resp}
	go func() {
		defer close(s.events)
		// Whole lines only: a Scanner hands out the partial line it holds
		// when the body is closed mid-event (the test's own disconnects), as
		// if it were complete.
		br := bufio.NewReader(resp.Body)
		var ev sseEvent
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			switch {
			case line == "":
				if ev.Name != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Name = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.Data); err != nil {
					t.Errorf("data is not JSON: %q", line)
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return s, resp.StatusCode
}

func (s *sse) close() { s.resp.Body.Close() }

// next waits for the next event that match accepts, skipping others, and
// fails after timeout.
func (s *sse) next(t *testing.T, what string, match func(sseEvent) bool) sseEvent {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended while waiting for %s", what)
			}
			if match(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s within 20s", what)
		}
	}
}

// ended waits for the stream to end, and fails after timeout.
func (s *sse) ended(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("stream still open after %s", timeout)
		}
	}
}

func named(name string) func(sseEvent) bool { return func(e sseEvent) bool { return e.Name == name } }

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// call sends a JSON request and returns the status and the decoded body.
func call(t *testing.T, base, tok, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+"/api/v1"+path, rd)
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func mustCall(t *testing.T, base, tok, method, path string, body any, want int) map[string]any {
	t.Helper()
	status, out := call(t, base, tok, method, path, body)
	if status != want {
		t.Fatalf("%s %s = %d %v, want %d", method, path, status, out, want)
	}
	return out
}

func dataID(out map[string]any) int64 { return num(out["data"].(map[string]any)["id"]) }

// streamWorld is a database with members, their write tokens and token ids.
type streamWorld struct {
	env    map[string]string
	tok    map[string]string
	tokID  map[string]string
	db     *sqlx.DB
	server string // the binary
}

func newStreamWorld(t *testing.T, env map[string]string, handles ...string) *streamWorld {
	t.Helper()
	w := &streamWorld{env: map[string]string{"DATABASE_URL": pgtest.NewURL(t), "RATE_LIMIT_WRITE": "100000",
		"RATE_LIMIT_READ": "100000", "METRICS_ADDR": "off", "PUBLIC_URL": "http://social.test"}, tok: map[string]string{}, tokID: map[string]string{}}
	for k, v := range env {
		w.env[k] = v
	}
	idRE := regexp.MustCompile(`created token (\d+)`)
	for _, h := range handles {
		if _, _, err := cli(t, w.env, "member", "create", "--handle", h, "--name", h); err != nil {
			t.Fatal(err)
		}
		out, errOut, err := cli(t, w.env, "token", "create", "--handle", h, "--scope", "write")
		if err != nil {
			t.Fatal(err)
		}
		w.tok[h] = strings.TrimSpace(out)
		w.tokID[h] = idRE.FindStringSubmatch(errOut)[1]
	}
	db, err := sqlx.Open("postgres", w.env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.db = db
	w.server = buildBinary(t)
	return w
}

func (w *streamWorld) start(t *testing.T) string { return startServer(t, w.server, w.env) }

// TestStreamAcrossInstances: a stream held on instance B receives the
// events of requests served by instance A: a reaction's notification, a
// message (and its conversation's unread count), a post entering the home
// timeline once the fan-out has run, and its deletion.
func TestStreamAcrossInstances(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, nil, "alice", "bob")
	a, b := w.start(t), w.start(t)
	alice, bob := w.tok["alice"], w.tok["bob"]
	mustCall(t, a, alice, "POST", "/users/bob/follow", nil, 200)
	mine := dataID(mustCall(t, a, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))

	s := openStream(t, b, alice, "")
	mustCall(t, a, bob, "POST", fmt.Sprintf("/posts/%d/react", mine), map[string]any{"type": "love"}, 200)
	ev := s.next(t, "notification", named("notification"))
	if ev.ID == "" || ev.Data["type"] != "reaction" || num(ev.Data["post_id"]) != mine || ev.Data["actor"].(map[string]any)["handle"] != "bob" {
		t.Errorf("notification event = %+v", ev)
	}
	// The notification as the list shows it, field for field.
	list := mustCall(t, a, alice, "GET", "/notifications", nil, 200)
	first, _ := json.Marshal(list["data"].([]any)[0])
	got, _ := json.Marshal(ev.Data)
	if !bytes.Equal(first, got) {
		t.Errorf("notification event %s, list shows %s", got, first)
	}

	conv := mustCall(t, a, bob, "POST", "/conversations", map[string]any{"participants": []string{"alice"}, "body": "hi"}, 201)
	convID := dataID(conv)
	msg := s.next(t, "message", named("message"))
	if num(msg.Data["conversation_id"]) != convID || msg.Data["message"].(map[string]any)["body"] != "hi" {
		t.Errorf("message event = %+v", msg)
	}
	unread := s.next(t, "conversation", named("conversation"))
	if num(unread.Data["conversation_id"]) != convID || num(unread.Data["unread_count"]) != 1 {
		t.Errorf("conversation event = %+v", unread)
	}
	mustCall(t, a, alice, "POST", fmt.Sprintf("/conversations/%d/read", convID), nil, 200)
	read := s.next(t, "conversation read", named("conversation"))
	if num(read.Data["unread_count"]) != 0 {
		t.Errorf("conversation event after read = %+v", read)
	}

	post := dataID(mustCall(t, a, bob, "POST", "/posts", map[string]any{"body": "for my followers", "visibility": "followers"}, 201))
	pe := s.next(t, "post", func(e sseEvent) bool { return e.Name == "post" && num(e.Data["id"]) == post })
	if pe.Data["author"].(map[string]any)["handle"] != "bob" || pe.Data["created_at"] == "" {
		t.Errorf("post event = %+v", pe)
	}
	mustCall(t, a, bob, "DELETE", fmt.Sprintf("/posts/%d", post), nil, 204)
	s.next(t, "delete", func(e sseEvent) bool { return e.Name == "delete" && num(e.Data["id"]) == post })

	// Ids increase.
	if a, b := mustInt(t, ev.ID), mustInt(t, pe.ID); a >= b {
		t.Errorf("ids %d then %d", a, b)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("event id %q", s)
	}
	return n
}

// TestStreamResume: a reconnection with Last-Event-ID receives what it
// missed; one older than the resume window starts with a refetch event.
func TestStreamResume(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, map[string]string{"STREAM_RESUME_WINDOW": "3s"}, "alice", "bob")
	base := w.start(t)
	alice, bob := w.tok["alice"], w.tok["bob"]
	mine := dataID(mustCall(t, base, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))
	comment := func() int64 {
		return dataID(mustCall(t, base, bob, "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "hey"}, 201))
	}
	s := openStream(t, base, alice, "")
	comment()
	first := s.next(t, "notification", named("notification"))
	s.close()
	missed := []int64{comment(), comment()}

	s = openStream(t, base, alice, first.ID)
	for _, c := range missed {
		ev := s.next(t, "missed notification", named("notification"))
		if ev.Name == "refetch" || num(ev.Data["comment_id"]) != c {
			t.Fatalf("resumed with %+v, want the comment %d", ev, c)
		}
	}
	s.close()

	// Once the window has passed, the rows are pruned: refetch.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := w.db.Get(&n, `SELECT count(*) FROM stream_events e JOIN members m ON m.id = e.member_id WHERE m.handle = 'alice' AND e.seq = $1`, mustInt(t, first.ID)); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event was never pruned")
		}
		time.Sleep(100 * time.Millisecond)
	}
	s = openStream(t, base, alice, first.ID)
	if ev := s.next(t, "first event", func(sseEvent) bool { return true }); ev.Name != "refetch" || ev.ID != "" || ev.Data["reason"] != "not_resumable" {
		t.Errorf("first event after the window = %+v, want refetch", ev)
	}
}

// TestStreamExactlyOnce: writers comment concurrently while the stream
// drops its connection and resumes several times; every comment whose
// write was acknowledged appears exactly once as a notification.
func TestStreamExactlyOnce(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, nil, "alice", "bob", "carol", "dave")
	a, b := w.start(t), w.start(t)
	alice := w.tok["alice"]
	mine := dataID(mustCall(t, a, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))

	const perWriter = 40
	var mu sync.Mutex
	acked := map[int64]bool{}
	s := openStream(t, b, alice, "")
	var wg sync.WaitGroup
	for i, h := range []string{"bob", "carol", "dave"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := []string{a, b}[i%2]
			for range perWriter {
				status, out := call(t, base, w.tok[h], "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "x"})
				if status == 201 {
					mu.Lock()
					acked[dataID(out)] = true
					mu.Unlock()
				}
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()

	seen := map[int64]int{}
	last, received := "", 0
	for done := false; ; {
		select {
		case <-writersDone:
			done = true
			writersDone = nil
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("stream ended")
			}
			if ev.Name == "refetch" {
				t.Fatalf("refetch within the window")
			}
			if ev.Name != "notification" {
				continue
			}
			last = ev.ID
			seen[num(ev.Data["comment_id"])]++
			received++
			if received%25 == 0 { // drop the connection and resume, on the other instance
				s.close()
				s = openStream(t, []string{a, b}[received/25%2], alice, last)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d notifications after the writers ended, want %d", len(seen), len(acked))
		}
		mu.Lock()
		complete := done && len(seen) >= len(acked)
		mu.Unlock()
		if complete {
			break
		}
	}
	if len(acked) != 3*perWriter {
		t.Errorf("%d comments acknowledged, want %d", len(acked), 3*perWriter)
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Errorf("comment %d: notification seen %d times, want once", id, seen[id])
		}
	}
	for id, n := range seen {
		if !acked[id] {
			t.Errorf("notification of comment %d, never acknowledged (seen %d)", id, n)
		}
	}
}

// TestStreamVisibility: the rule is applied when an event is sent, the
// lists' rule (internal/visibility). On resume, none of these is sent: a
// notification whose actor the member muted meanwhile, a message of that
// actor, a post of a member the member blocked meanwhile, a reaction of a
// member who blocked the member meanwhile (a block hides both ways), and a
// comment of a member suspended meanwhile; what follows is.
func TestStreamVisibility(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, nil, "alice", "bob", "carol", "erin", "frank")
	base := w.start(t)
	alice, bob, carol := w.tok["alice"], w.tok["bob"], w.tok["carol"]
	mustCall(t, base, alice, "POST", "/users/bob/follow", nil, 200)
	mine := dataID(mustCall(t, base, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))

	s := openStream(t, base, alice, "")
	mustCall(t, base, bob, "POST", fmt.Sprintf("/posts/%d/react", mine), map[string]any{"type": "like"}, 200)
	mark := s.next(t, "notification", named("notification"))
	s.close()

	// While the stream is closed: carol comments and writes to alice, bob
	// posts, erin reacts, frank comments; then alice mutes carol and
	// blocks bob, erin blocks alice, and frank is suspended.
	mustCall(t, base, carol, "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "hidden soon"}, 201)
	conv := mustCall(t, base, carol, "POST", "/conversations", map[string]any{"participants": []string{"alice"}, "body": "hidden soon"}, 201)
	hiddenMsg := num(conv["data"].(map[string]any)["last_message"].(map[string]any)["id"])
	hidden := dataID(mustCall(t, base, bob, "POST", "/posts", map[string]any{"body": "hidden soon", "visibility": "public"}, 201))
	mustCall(t, base, w.tok["erin"], "POST", fmt.Sprintf("/posts/%d/react", mine), map[string]any{"type": "love"}, 200)
	mustCall(t, base, w.tok["frank"], "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "hidden soon"}, 201)
	waitUntil(t, 20*time.Second, "the fan-out of bob's post", func() bool {
		var n int
		_ = w.db.Get(&n, `SELECT count(*) FROM stream_events WHERE kind = 'post' AND ref_id = $1`, hidden)
		return n > 0
	})
	mustCall(t, base, alice, "POST", "/users/carol/mute", nil, 200)
	mustCall(t, base, alice, "POST", "/users/bob/block", nil, 200)
	mustCall(t, base, w.tok["erin"], "POST", "/users/alice/block", nil, 200)
	if _, _, err := cli(t, w.env, "member", "suspend", "frank", "--reason", "test"); err != nil {
		t.Fatal(err)
	}
	// A sentinel after them: a comment of dave's.
	if _, _, err := cli(t, w.env, "member", "create", "--handle", "dave", "--name", "dave"); err != nil {
		t.Fatal(err)
	}
	out, _, err := cli(t, w.env, "token", "create", "--handle", "dave", "--scope", "write")
	if err != nil {
		t.Fatal(err)
	}
	sentinel := dataID(mustCall(t, base, strings.TrimSpace(out), "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "visible"}, 201))

	s = openStream(t, base, alice, mark.ID)
	for {
		ev := s.next(t, "the sentinel", func(sseEvent) bool { return true })
		if ev.Name == "notification" && num(ev.Data["comment_id"]) == sentinel {
			break
		}
		switch {
		case ev.Name == "refetch":
			t.Fatal("refetch within the window")
		case ev.Name == "notification":
			t.Errorf("notification sent after its actor was muted, blocked, blocked alice or was suspended: %+v", ev)
		case ev.Name == "message":
			t.Errorf("message sent after its sender was muted: %+v (message %d)", ev, hiddenMsg)
		case ev.Name == "post" && num(ev.Data["id"]) == hidden:
			t.Errorf("post of a blocked member sent: %+v", ev)
		}
	}
}

// TestStreamClosedOnRevocationAndSuspension: a stream ends within the
// recheck interval of its token's revocation, and of its member's
// suspension; reconnecting answers 401.
func TestStreamClosedOnRevocationAndSuspension(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, map[string]string{"STREAM_RECHECK": "1s"}, "alice", "bob")
	base := w.start(t)
	s := openStream(t, base, w.tok["alice"], "")
	if _, _, err := cli(t, w.env, "token", "revoke", w.tokID["alice"]); err != nil {
		t.Fatal(err)
	}
	s.ended(t, 5*time.Second)
	if _, status := tryStream(t, base, w.tok["alice"], ""); status != http.StatusUnauthorized {
		t.Errorf("reconnect with a revoked token = %d, want 401", status)
	}

	s = openStream(t, base, w.tok["bob"], "")
	if _, _, err := cli(t, w.env, "member", "suspend", "bob", "--reason", "test"); err != nil {
		t.Fatal(err)
	}
	s.ended(t, 5*time.Second)
	if _, status := tryStream(t, base, w.tok["bob"], ""); status != http.StatusUnauthorized {
		t.Errorf("reconnect of a suspended member = %d, want 401", status)
	}
}

// TestStreamBounds: a member's fifth stream answers 429 with Retry-After;
// a reader that stops reading is dropped rather than buffered for.
func TestStreamBounds(t *testing.T) {
	t.Parallel()
	metrics := freeAddr(t)
	w := newStreamWorld(t, map[string]string{"STREAM_WRITE_TIMEOUT": "1s", "METRICS_ADDR": metrics}, "alice", "bob")
	base := w.start(t)
	alice := w.tok["alice"]
	var streams []*sse
	for range 4 {
		streams = append(streams, openStream(t, base, alice, ""))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a stream never ends
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+alice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"concurrency_scope":"member"`) {
		t.Errorf("fifth stream = %d %s (Retry-After %q), want 429", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	for _, s := range streams {
		s.close()
	}

	// bob's stream on a connection with a small receive buffer that is
	// never read after the headers.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", w.tok["bob"])
	head := make([]byte, 512)
	if n, err := conn.Read(head); err != nil || !bytes.Contains(head[:n], []byte(" 200 ")) {
		t.Fatalf("slow reader's stream: %q %v", head[:n], err)
	}
	// Many long messages to bob, straight into the database (the triggers
	// write bob's events as for any message), 500 a transaction: one
	// transaction gives a member at most 1023 events (migration 000036),
	// and one that would give more fails whole.
	var conv int64
	if err := w.db.Get(&conv, `
		WITH c AS (INSERT INTO conversations DEFAULT VALUES RETURNING id),
		     p AS (INSERT INTO conversation_participants (conversation_id, member_id)
		           SELECT c.id, m.id FROM c, members m WHERE m.handle IN ('alice', 'bob'))
		SELECT id FROM c`); err != nil {
		t.Fatal(err)
	}
	const insertMessages = `
		INSERT INTO messages (conversation_id, sender_id, body)
		SELECT $1, (SELECT id FROM members WHERE handle = 'alice'), repeat('x', 2000) FROM generate_series(1, $2)`
	if _, err := w.db.Exec(insertMessages, conv, 1024); err == nil || !strings.Contains(err.Error(), "more than 1023 events") {
		t.Fatalf("1024 events for bob in one transaction: %v, want the limit's error", err)
	}
	for range 10 {
		if _, err := w.db.Exec(insertMessages, conv, 500); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, 20*time.Second, "the slow reader's drop", func() bool {
		return metric(t, "http://"+metrics+"/metrics", `socialapi_stream_drops_total{reason="slow"}`) >= 1
	})
	if n := metric(t, "http://"+metrics+"/metrics", "socialapi_stream_open"); n != 0 {
		t.Errorf("open streams after the drop = %v", n)
	}
}

// TestStreamShutdown: on SIGTERM a stream gets a retry hint and ends, and
// the server exits without waiting for its drain timeout.
func TestStreamShutdown(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, map[string]string{"SHUTDOWN_TIMEOUT": "60s"}, "alice")
	addr := freeAddr(t)
	cmd := exec.Command(w.server, "serve")
	cmd.Env = append(os.Environ(), "ADDR="+addr, "LOG_LEVEL=warn")
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	base := "http://" + addr
	waitUntil(t, 20*time.Second, "the server", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	req, _ := http.NewRequest("GET", base+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+w.tok["alice"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if line, _ := rd.ReadString('\n'); line != "retry: 3000\n" {
		t.Fatalf("first line %q", line)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(rd) // ends when the server closes the stream
	if !strings.Contains(string(rest), "retry: ") {
		t.Errorf("stream ended with %q, want a retry hint", rest)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("server still running 15s after SIGTERM with a stream open")
	}
}

// TestStreamFanOutSharesReads: the streams one post's fan-out wakes
// together are read with shared statements (fewer statements than
// reads), and each stream still gets what its own member may see: every
// follower receives bob's posts except the one who muted bob, who
// receives carol's post after them and none of bob's.
func TestStreamFanOutSharesReads(t *testing.T) {
	t.Parallel()
	metrics := freeAddr(t)
	handles := []string{"bob", "carol"}
	for i := range 12 {
		handles = append(handles, fmt.Sprintf("f%d", i))
	}
	w := newStreamWorld(t, map[string]string{"METRICS_ADDR": metrics}, handles...)
	base := w.start(t)
	followers := handles[2:]
	for _, f := range followers {
		mustCall(t, base, w.tok[f], "POST", "/users/bob/follow", nil, 200)
		mustCall(t, base, w.tok[f], "POST", "/users/carol/follow", nil, 200)
	}
	mustCall(t, base, w.tok["f0"], "POST", "/users/bob/mute", nil, 200)
	streams := map[string]*sse{}
	for _, f := range followers {
		streams[f] = openStream(t, base, w.tok[f], "")
	}
	const posts = 5
	bobs := map[int64]bool{}
	for range posts {
		id := dataID(mustCall(t, base, w.tok["bob"], "POST", "/posts", map[string]any{"body": "to my followers", "visibility": "followers"}, 201))
		bobs[id] = true
	}
	waitUntil(t, 20*time.Second, "the fan-out of bob's posts", func() bool {
		var n int
		_ = w.db.Get(&n, `
			SELECT count(*) FROM stream_events e JOIN members m ON m.id = e.member_id
			 WHERE e.kind = 'post' AND e.ref_id = ANY ($1) AND m.handle <> 'f0'`,
			pq.Array(slices.Collect(maps.Keys(bobs))))
		return n >= posts*(len(followers)-1)
	})
	sentinel := dataID(mustCall(t, base, w.tok["carol"], "POST", "/posts", map[string]any{"body": "after", "visibility": "public"}, 201))
	for _, f := range followers {
		got := 0
		for {
			ev := streams[f].next(t, f+": carol's post", named("post"))
			if num(ev.Data["id"]) == sentinel {
				break
			}
			if !bobs[num(ev.Data["id"])] {
				t.Errorf("%s: post event %+v", f, ev)
			}
			got++
		}
		want := posts
		if f == "f0" {
			want = 0
		}
		if got != want {
			t.Errorf("%s received %d of bob's posts, want %d", f, got, want)
		}
	}
	page := "http://" + metrics + "/metrics"
	reads, stmts := metric(t, page, "socialapi_stream_reads_total"), metric(t, page, "socialapi_stream_read_statements_total")
	t.Logf("%d stream reads, %d statements", reads, stmts)
	if reads < int64(len(followers)) || stmts >= reads {
		t.Errorf("%d stream reads answered by %d statements: want fewer statements than reads", reads, stmts)
	}
}

// TestStreamPresenceOutlastsTheWindow: a stream held open longer than the
// resume window keeps its member's presence (the instance extends it), so
// events are still written and delivered after the first window ends.
func TestStreamPresenceOutlastsTheWindow(t *testing.T) {
	t.Parallel()
	w := newStreamWorld(t, map[string]string{"STREAM_RESUME_WINDOW": "3s"}, "alice", "bob")
	base := w.start(t)
	alice, bob := w.tok["alice"], w.tok["bob"]
	mine := dataID(mustCall(t, base, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))
	s := openStream(t, base, alice, "")
	var opened time.Time
	if err := w.db.Get(&opened, `SELECT until FROM stream_presence sp JOIN members m ON m.id = sp.member_id WHERE m.handle = 'alice'`); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 20*time.Second, "the presence the stream began with to end", func() bool {
		var past bool
		_ = w.db.Get(&past, `SELECT now() > $1`, opened)
		return past
	})
	c := dataID(mustCall(t, base, bob, "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "still there?"}, 201))
	if ev := s.next(t, "the notification after the window", named("notification")); num(ev.Data["comment_id"]) != c {
		t.Errorf("event %+v, want the notification of comment %d", ev, c)
	}
}

// TestStreamWaitsForEarlierTransactions: an event is sent only once every
// transaction with a smaller id has ended (migration 000036), and a stream
// that read it before then reads again on its own: the transaction that
// held it back here writes no event, so no NOTIFY would wake the stream.
// Meanwhile other NOTIFYs cost the waiting stream no read.
func TestStreamWaitsForEarlierTransactions(t *testing.T) {
	t.Parallel()
	metrics := freeAddr(t)
	w := newStreamWorld(t, map[string]string{"METRICS_ADDR": metrics}, "alice", "bob")
	base := w.start(t)
	alice, bob := w.tok["alice"], w.tok["bob"]
	mine := dataID(mustCall(t, base, alice, "POST", "/posts", map[string]any{"body": "mine", "visibility": "public"}, 201))
	s := openStream(t, base, alice, "")

	// A writing transaction, left open: its id is below the comment's.
	blocker, err := w.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback()
	if _, err := blocker.Exec(`UPDATE members SET name = name WHERE handle = 'bob'`); err != nil {
		t.Fatal(err)
	}
	page := "http://" + metrics + "/metrics"
	c := dataID(mustCall(t, base, bob, "POST", fmt.Sprintf("/posts/%d/comments", mine), map[string]any{"body": "held back"}, 201))
	// The stream has read the comment's event (woken by its NOTIFY) while
	// the blocker runs, so could not send it.
	waitUntil(t, 20*time.Second, "a read of the held-back event", func() bool {
		return metric(t, page, "socialapi_stream_unsettled_reads_total") >= 1
	})
	// NOTIFYs of other transactions do not move the horizon past the held
	// event while the blocker runs: they cost the waiting stream no read
	// (the hub reads the horizon for it), only the last one, which names
	// alice, does. Listeners get notifications in order, so that read
	// comes after the others were handled.
	var aliceID int64
	if err := w.db.Get(&aliceID, `SELECT id FROM members WHERE handle = 'alice'`); err != nil {
		t.Fatal(err)
	}
	reads := metric(t, page, "socialapi_stream_reads_total")
	for range 200 {
		w.db.MustExec(`SELECT pg_notify('stream', '0')`)
	}
	w.db.MustExec(`SELECT pg_notify('stream', $1)`, strconv.FormatInt(aliceID, 10))
	waitUntil(t, 20*time.Second, "the read alice's poke causes", func() bool {
		return metric(t, page, "socialapi_stream_reads_total") > reads
	})
	if n := metric(t, page, "socialapi_stream_reads_total") - reads; n > 3 {
		t.Errorf("201 NOTIFYs while the event is held back: %v reads of the stream, want at most 3", n)
	}
	// With no NOTIFY coming, the waiting stream keeps having the horizon
	// read on its own while the blocker runs.
	hz := metric(t, page, "socialapi_stream_horizon_reads_total")
	waitUntil(t, 20*time.Second, "the waiting stream's own reads of the horizon", func() bool {
		return metric(t, page, "socialapi_stream_horizon_reads_total") >= hz+2
	})
	if err := blocker.Commit(); err != nil {
		t.Fatal(err)
	}
	if ev := s.next(t, "the held-back notification", named("notification")); num(ev.Data["comment_id"]) != c {
		t.Errorf("event %+v, want the notification of comment %d", ev, c)
	}
}
