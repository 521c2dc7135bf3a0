package faults_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
)

// cluster is a PostgreSQL cluster of one test, on a free loopback port, in
// the test's temporary directory. The test may stop, start and restart it.
type cluster struct {
	t    testing.TB
	dir  string
	port int
	bin  string // directory of pg_ctl
}

// repoRoot is the module root (two levels above this file).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// newCluster initialises and starts a throwaway cluster (fsync off) with
// scripts/localpg.sh, creates the database "social" and migrates it. It is
// stopped when the test ends.
func newCluster(t testing.TB) *cluster {
	t.Helper()
	var c *cluster
	for attempt := 0; ; attempt++ {
		// The free port may be taken by someone else before PostgreSQL binds it: retry on another.
		c = &cluster{t: t, dir: t.TempDir(), port: freePort(t)}
		out, err := exec.Command(filepath.Join(repoRoot(), "scripts", "localpg.sh"), "start", c.dir, strconv.Itoa(c.port), "fast").CombinedOutput()
		if err == nil {
			break
		}
		if attempt == 2 || !strings.Contains(string(out), "Address already in use") {
			t.Fatalf("start PostgreSQL: %v\n%s", err, out)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command(filepath.Join(repoRoot(), "scripts", "localpg.sh"), "stop", c.dir).Run()
	})
	c.bin = pgBin(t)
	admin := c.open("postgres")
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE social`); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db := c.open("social")
	defer db.Close()
	if err := pg.MigrateUp(db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return c
}

// pgBin finds the PostgreSQL server binaries the way scripts/localpg.sh does.
func pgBin(t testing.TB) string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	ds, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(ds)
	for i := len(ds) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(ds[i], "pg_ctl")); err == nil {
			return ds[i]
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p)
	}
	t.Fatal("pg_ctl not found")
	return ""
}

// URL is the connection URL of database name on this cluster, with an
// application_name so the test can find the server's sessions in
// pg_stat_activity.
func (c *cluster) URL(name, app string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&application_name=%s", c.port, name, app)
}

func (c *cluster) open(name string) *sqlx.DB {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pg.Open(ctx, c.URL(name, "faulttest"), pg.PoolConfig{MaxOpen: 4, MaxIdle: 2, MaxLifetime: time.Minute, MaxIdleTime: time.Minute})
	if err != nil {
		c.t.Fatalf("connect to test cluster: %v", err)
	}
	return db
}

// pgCtl runs pg_ctl on the cluster as its owner.
func (c *cluster) pgCtl(args ...string) {
	c.t.Helper()
	args = append([]string{"-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", "-p " + strconv.Itoa(c.port)}, args...)
	cmd := exec.Command(filepath.Join(c.bin, "pg_ctl"), args...)
	if os.Getuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(c.bin, "pg_ctl")}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("pg_ctl %v: %v\n%s", args, err, out)
	}
}

// Restart is `pg_ctl restart -m fast`: sessions are terminated, in-flight
// queries fail, the server comes back on the same port.
func (c *cluster) Restart() { c.pgCtl("-m", "fast", "restart") }

// Stop is `pg_ctl stop -m fast`.
func (c *cluster) Stop() { c.pgCtl("-m", "fast", "stop") }

// Start starts a stopped cluster.
func (c *cluster) Start() { c.pgCtl("start") }

// nextPort hands out the candidates of freePort, from a start that differs
// between the test processes of one `go test ./...`.
var nextPort atomic.Int32

func init() { nextPort.Store(int32(20000 + os.Getpid()%4000*3)) }

// freePort returns a loopback port nothing listens on, below the kernel's
// ephemeral range (32768 and up on Linux). A port the kernel hands out for
// ":0" comes from that range, and was taken again by an outgoing connection
// of the test's own clients before the server bound it ("address already in
// use", seen in a clean-clone `make test`); ports below it are never given to outgoing
// connections, and the counter never hands one out twice in a process.
func freePort(t testing.TB) int {
	t.Helper()
	for range 2000 {
		p := int(nextPort.Add(1))
		if p >= 32000 {
			nextPort.Store(20000)
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		ln.Close()
		return p
	}
	t.Fatal("no free port below 32000")
	return 0
}
