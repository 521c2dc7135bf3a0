package main

import (
	"math"
	"testing"
)

func TestPGBackground(t *testing.T) {
	for cmdline, want := range map[string]bool{
		"postgres: checkpointer   ":                              true,
		"postgres: autovacuum worker socialbench\x00":            true,
		"postgres: autovacuum launcher ":                         true,
		"postgres: walwriter ":                                   true,
		"postgres: bench: background writer ":                    true, // with cluster_name
		"postgres: postgres socialbench 127.0.0.1(50122) idle":   false,
		"postgres: postgres socialbench [local] SELECT":          false,
		"postgres: parallel worker for PID 4242 ":                false,
		"postgres: walker socialbench 127.0.0.1(50123) idle":     false, // a role whose name starts like a title
		"/usr/lib/postgresql/15/bin/postgres\x00-D\x00/data\x00": false,
	} {
		if got := pgBackground(cmdline); got != want {
			t.Errorf("pgBackground(%q) = %v, want %v", cmdline, got, want)
		}
	}
}

func TestCPUReadingTo(t *testing.T) {
	before := cpuReading{server: 10, pg: 20, pgClients: map[int]float64{1: 5, 2: 6, 3: 1}, busy: 100, steal: 4, total: 400}
	// Over 2 s: PostgreSQL used 3 s, of which clients 1 and 2 used 1 s
	// each, client 4 (new) 0.5 s; client 3 exited (its time is reaped,
	// counted with the background).
	after := cpuReading{server: 12, pg: 23, pgClients: map[int]float64{1: 6, 2: 7, 4: 0.5}, busy: 300, steal: 24, total: 800}
	u := before.to(after, 2)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(u.server, 1) || !near(u.pg, 1.5) || !near(u.busy, 0.5) || !near(u.steal, 0.05) {
		t.Errorf("to = %+v", u)
	}
	if !near(u.pgBackground, 0.25) { // (3 - 2.5) / 2
		t.Errorf("background = %v, want 0.25", u.pgBackground)
	}
}

func TestParseCPULine(t *testing.T) {
	for _, c := range []struct {
		line               string
		busy, steal, total float64
	}{
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// guest time is inside user and nice already.
		{"cpu  400 10 200 1000 50 5 25 60 300 7", 700, 60, 1750},
		{"cpu  400 10 200 1000 50 5 25", 640, 0, 1690},   // an old kernel: no steal column
		{"cpu0 400 10 200 1000 50 5 25 60 0 0", 0, 0, 0}, // one CPU's line, not the sum
		{"", 0, 0, 0},
	} {
		busy, steal, total := parseCPULine(c.line)
		if busy != c.busy || steal != c.steal || total != c.total {
			t.Errorf("parseCPULine(%q) = %v, %v, %v; want %v, %v, %v", c.line, busy, steal, total, c.busy, c.steal, c.total)
		}
	}
}

func TestBusyShare(t *testing.T) {
	for _, c := range []struct {
		busy, steal float64
		want        string
	}{
		{0.97, 0, "97 %"},
		{0.97, 0.004, "97 %"},
		{0.97, 0.04, "97 % (4 %)"},
	} {
		if got := busyShare(c.busy, c.steal); got != c.want {
			t.Errorf("busyShare(%v, %v) = %q, want %q", c.busy, c.steal, got, c.want)
		}
	}
}
