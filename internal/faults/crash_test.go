package faults_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// writeMix is a write-heavy load: each worker, as its own member, creates
// posts, comments on the seed posts, reacts to them and follows every other
// member once (a follow is a toggle, so each pair is toggled at most once
// and an acknowledged toggle means "following").
func writeMix(f fixture, prefix string) mix {
	n := len(f.tokens)
	return func(w, i int) request {
		me, tok := f.handles[w%n], f.tokens[w%n]
		post := f.posts[(w+i)%n]
		switch i % 4 {
		case 0:
			key := fmt.Sprintf("%s post w%d n%d", prefix, w, i)
			return request{method: "POST", path: "/api/v1/posts", body: `{"body":"` + key + `"}`, token: tok, kind: "post", key: key}
		case 1:
			key := fmt.Sprintf("%s comment w%d n%d", prefix, w, i)
			return request{method: "POST", path: fmt.Sprintf("/api/v1/posts/%d/comments", post), body: `{"body":"` + key + `"}`, token: tok, kind: "comment", key: key}
		case 2:
			return request{method: "POST", path: fmt.Sprintf("/api/v1/posts/%d/react", post), body: `{"type":"like"}`, token: tok, kind: "react", key: fmt.Sprintf("%s:%d", me, post)}
		default:
			k := i / 4
			if k >= n-1 {
				return request{method: "GET", path: "/api/v1/feed", token: tok, kind: "read"}
			}
			other := f.handles[(w+1+k)%n]
			return request{method: "POST", path: "/api/v1/users/" + other + "/follow", token: tok, kind: "follow", key: me + "->" + other}
		}
	}
}

// TestCrashUnderWriteLoad kills the server with SIGKILL twice in the middle
// of a write-heavy load, restarts it each time, and then checks that every
// write that got a 2xx is stored exactly once, that nothing is stored that
// was never attempted, and that `socialapi check` finds every counter equal
// to its rows (nothing half-written).
func TestCrashUnderWriteLoad(t *testing.T) {
	t.Parallel()
	c, db, f := seededCluster(t, 12)
	env := serverEnv(c.URL("social", appName))
	env["REQUEST_TIMEOUT"] = "5s"
	s := startServer(t, env)
	l := newLoad(t, s.base, 5*time.Second, 6, writeMix(f, "crash"))
	l.down = true
	l.start()
	for round := range 2 {
		l.setPhase(fmt.Sprintf("%d-load", round))
		time.Sleep(1500 * time.Millisecond)
		l.setPhase(fmt.Sprintf("%d-killed", round))
		s.kill()
		s = startServer(t, env)
		l.setBase(s.base)
	}
	l.setPhase("2-after")
	time.Sleep(time.Second)
	l.stop()
	l.check()
	for _, kind := range []string{"post", "comment", "react", "follow"} {
		t.Run(kind, func(t *testing.T) {
			if len(l.acked[kind]) == 0 {
				t.Errorf("no %s acknowledged: the load did not write", kind)
			}
		})
	}
	l.verifyWrites(db, "crash")

	cmd := exec.Command(serverBinary(t), "check")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+c.URL("social", "check"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("socialapi check after the crashes: %v\n%s", err, out)
	}
}
