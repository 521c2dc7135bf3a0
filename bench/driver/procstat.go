package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// cpuSeconds is the user+system CPU time of pid so far.
func cpuSeconds(pid int) float64 {
	own, _ := cpuTimes(pid)
	return own
}

// cpuTimes is the user+system CPU time of pid, and that of its children it
// has waited for (cutime+cstime).
func cpuTimes(pid int) (own, reaped float64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	// Fields after the command name, which may contain spaces: state is field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, 0
	}
	var v [4]float64
	for k := range v {
		v[k], _ = strconv.ParseFloat(f[11+k], 64)
	}
	return (v[0] + v[1]) / clockTicks, (v[2] + v[3]) / clockTicks
}

// parentOf is the parent pid of pid.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// treeCPU is the CPU time of pid and its children (PostgreSQL: the
// postmaster, its backends and background processes). A backend that exits
// moves its time into the postmaster's reaped-children time, so the sum
// stays continuous.
func treeCPU(pid int) float64 {
	total, _ := pgCPU(pid)
	return total
}

// pgCPU is treeCPU, and the CPU time so far of each child that serves
// queries (a client backend or a parallel worker of one), by pid. The rest
// of the total is PostgreSQL's background: autovacuum workers, checkpointer,
// background and WAL writers, and whatever exited (reaped). Between two
// readings, the clients' share is exact for connections that lived through
// both, as the server's and the driver's pooled ones do.
func pgCPU(pid int) (total float64, clients map[int]float64) {
	if pid == 0 {
		return 0, nil
	}
	own, reaped := cpuTimes(pid)
	total = own + reaped
	clients = map[int]float64{}
	ents, _ := filepath.Glob("/proc/[0-9]*")
	for _, e := range ents {
		child, err := strconv.Atoi(filepath.Base(e))
		if err != nil || child == pid || parentOf(child) != pid {
			continue
		}
		c := cpuSeconds(child)
		total += c
		if title, err := os.ReadFile(e + "/cmdline"); err == nil && !pgBackground(string(title)) {
			clients[child] = c
		}
	}
	return total, clients
}

// pgBackgroundTitles are the process titles ("postgres: <title>", after an
// optional "<cluster_name>: ") of PostgreSQL's processes that serve no
// client.
var pgBackgroundTitles = []string{"autovacuum worker", "autovacuum launcher", "checkpointer", "background writer",
	"walwriter", "logical replication", "archiver", "startup", "walreceiver", "walsender", "stats collector", "io worker"}

// pgBackground reports whether a postmaster child's command line is that
// of a background process rather than a backend serving queries.
func pgBackground(cmdline string) bool {
	title, ok := strings.CutPrefix(strings.TrimRight(cmdline, "\x00 "), "postgres: ")
	if !ok {
		return false
	}
	_, named, clustered := strings.Cut(title, ": ") // after a cluster_name
	for _, t := range pgBackgroundTitles {
		if strings.HasPrefix(title, t) || clustered && strings.HasPrefix(named, t) {
			return true
		}
	}
	return false
}

// statusKB reads a "Key:   N kB" line of /proc/pid/status.
func statusKB(pid int, key string) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				v, _ := strconv.ParseFloat(f[0], 64)
				return v
			}
		}
	}
	return 0
}

// machineCPU is the busy, stolen and total jiffies of all CPUs (/proc/stat).
func machineCPU() (busy, steal, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPULine(line)
}

// parseCPULine reads the "cpu" line of /proc/stat: user nice system idle
// iowait irq softirq steal guest guest_nice, in jiffies. Busy is all but
// idle and iowait (steal included: a stolen CPU is not free for us); guest
// time is already counted in user and nice, so it is left out of the total.
func parseCPULine(line string) (busy, steal, total float64) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "cpu" {
		return 0, 0, 0
	}
	for i, v := range f[1:] {
		if i >= 8 { // guest, guest_nice
			break
		}
		x, _ := strconv.ParseFloat(v, 64)
		total += x
		if i != 3 && i != 4 { // idle, iowait
			busy += x
		}
		if i == 7 {
			steal = x
		}
	}
	return busy, steal, total
}

func numCPU() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 1
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "cpu") && len(line) > 3 && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return max(n, 1)
}

// cpuReading is, at one moment, the CPU time the API server and PostgreSQL
// (all of it, and each of its query-serving backends) have used and the
// machine's busy and total time: one taken before a run and since after it
// give what each used meanwhile.
type cpuReading struct {
	server, pg         float64
	driver             float64 // this process: it holds the streams scenario's streams
	pgClients          map[int]float64
	busy, steal, total float64
	// replica and replicaClients are pg and pgClients of the read replica
	// (-replica-postmaster-pid), zero without one.
	replica        float64
	replicaClients map[int]float64
}

func (d *driver) readCPU() cpuReading {
	busy, steal, total := machineCPU()
	pg, clients := pgCPU(d.opt.postmasterPID)
	replica, replicaClients := pgCPU(d.opt.replicaPostmasterPID)
	return cpuReading{server: cpuSeconds(d.opt.serverPID), driver: cpuSeconds(os.Getpid()), pg: pg, pgClients: clients,
		busy: busy, steal: steal, total: total, replica: replica, replicaClients: replicaClients}
}

// cpuUse is what the server and PostgreSQL used over a run, in cores, and
// the machine's busy share, of which steal is the share the hypervisor gave
// to other guests (a run slowed by a neighbour shows it here); driver is
// this process's own use (vegeta's is apart: phase.LoadGenCPU).
// pgBackground is the part of pg that no query-serving backend used
// (autovacuum, checkpoints, WAL writing, processes that exited); replica and
// replicaBackground the same of the read replica (its background is mostly
// WAL replay: startup and walreceiver).
type cpuUse struct{ server, driver, pg, pgBackground, busy, steal, replica, replicaBackground float64 }

// since returns what was used from r until now, over wall seconds.
func (r cpuReading) since(d *driver, wall float64) cpuUse {
	return r.to(d.readCPU(), wall)
}

// background is the part of a cluster's use (cores over wall seconds) that
// its query-serving backends, read as then and now, did not use.
func background(use float64, then, now map[int]float64, wall float64) float64 {
	clients := 0.0
	for pid, c := range now {
		clients += c - then[pid] // a backend new since then counts from 0
	}
	return max(0, use-clients/wall)
}

func (r cpuReading) to(now cpuReading, wall float64) cpuUse {
	u := cpuUse{server: (now.server - r.server) / wall, driver: (now.driver - r.driver) / wall, pg: (now.pg - r.pg) / wall, replica: (now.replica - r.replica) / wall}
	u.pgBackground = background(u.pg, r.pgClients, now.pgClients, wall)
	u.replicaBackground = background(u.replica, r.replicaClients, now.replicaClients, wall)
	if now.total > r.total {
		u.busy = (now.busy - r.busy) / (now.total - r.total)
		u.steal = (now.steal - r.steal) / (now.total - r.total)
	}
	return u
}
