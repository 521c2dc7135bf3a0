// Package redistest runs a real redis-server for a test, on a free loopback
// port, and lets the test stop and restart it.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is one redis-server process.
type Server struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the process exits
}

// Start launches redis-server (installed by `make test` when missing) and
// stops it when the test ends. A missing binary fails the test: tests never
// skip for lack of a service. The port is picked free and then released, so
// another process may take it first: a server that cannot listen is started
// again on another port.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redistest: redis-server not found on PATH; `make test` installs it (apt-get install redis-server)")
	}
	s := &Server{t: t}
	t.Cleanup(s.Stop)
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if err := s.start(); err == nil {
			return s
		} else {
			t.Logf("redistest: %v; trying another port", err)
		}
	}
	t.Fatalf("redistest: redis-server did not start")
	return nil
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.port) }

// Stop kills the server (its data is lost: it persists nothing).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart starts the server again on the same port and waits until it
// answers.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: %v", err)
	}
}

// start runs redis-server on s.port and waits until it answers PING: a
// connection alone could be another process that took the port.
func (s *Server) start() error {
	s.Stop()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			s.cmd = nil
			return fmt.Errorf("redis-server exited (port %d taken?)", s.port)
		default:
		}
		if ping(s.port) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("redis-server did not answer on port %d", s.port)
}

func ping(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
