// Package pgtest gives each test a fresh PostgreSQL database cloned from a
// migrated template, so tests can run in parallel against a real server.
//
// The server is TEST_DATABASE_URL (a role that may create databases). When it
// is unset, the project-local test cluster is started with
// scripts/localpg.sh, so `go test ./...` works on its own; `make test` does
// the same once for the whole run.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/db"
	"github.com/socialnet/socialapi/internal/pg"
)

// LocalPort is the port of the project-local test cluster.
const LocalPort = "54330"

var (
	once     sync.Once
	adminURL string
	template string
	setupErr error
)

// New returns a connection to a fresh, migrated database that is dropped
// when the test ends.
func New(t testing.TB) *sqlx.DB {
	t.Helper()
	dsn := NewURL(t)
	conn, err := pg.Open(context.Background(), dsn, pg.DefaultPool)
	if err != nil {
		t.Fatalf("pgtest: open test database: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// NewURL creates a fresh, migrated database and returns its URL; the database
// is dropped when the test ends. Use it when something else (a server
// process) must connect.
func NewURL(t testing.TB) string {
	t.Helper()
	once.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("pgtest: %v", setupErr)
	}
	name := "t_" + randHex(8)
	admin, err := sqlx.Open("postgres", adminURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer admin.Close()
	ctx := context.Background()
	var lastErr error
	for range 20 { // a concurrent CREATE DATABASE from the same template can collide; retry briefly
		if _, lastErr = admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, template)); lastErr == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if lastErr != nil {
		t.Fatalf("pgtest: create database: %v", lastErr)
	}
	t.Cleanup(func() {
		a, err := sqlx.Open("postgres", adminURL)
		if err != nil {
			return
		}
		defer a.Close()
		_, _ = a.ExecContext(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	})
	return withDB(adminURL, name)
}

func setup() error {
	adminURL = os.Getenv("TEST_DATABASE_URL")
	if adminURL == "" {
		u, err := startLocal()
		if err != nil {
			return err
		}
		adminURL = u
	}
	sum, err := migrationsHash()
	if err != nil {
		return err
	}
	template = "tmpl_" + sum[:16]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pg.Open(ctx, adminURL, pg.PoolConfig{MaxOpen: 1, MaxIdle: 1, MaxLifetime: time.Minute, MaxIdleTime: time.Minute})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(adminURL), err)
	}
	defer admin.Close()
	// One builder at a time across test binaries running in parallel.
	if _, err := admin.ExecContext(ctx, `SELECT pg_advisory_lock(727274)`); err != nil {
		return err
	}
	defer admin.ExecContext(context.Background(), `SELECT pg_advisory_unlock(727274)`)
	var exists bool
	if err := admin.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, template); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := template + "_building"
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, building)); err != nil {
		return err
	}
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %s`, building)); err != nil {
		return err
	}
	conn, err := pg.Open(ctx, withDB(adminURL, building), pg.PoolConfig{MaxOpen: 2, MaxIdle: 2, MaxLifetime: time.Minute, MaxIdleTime: time.Minute})
	if err != nil {
		return err
	}
	err = pg.MigrateUp(conn)
	conn.Close()
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %s RENAME TO %s`, building, template)); err != nil {
		return err
	}
	return nil
}

// startLocal starts the project-local cluster (under a file lock, since
// several test binaries may get here at once) and returns its admin URL.
func startLocal() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".data", "pgtest")
	if err := os.MkdirAll(filepath.Join(root, ".data"), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(root, ".data", "pgtest.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	cmd := exec.Command(filepath.Join(root, "scripts", "localpg.sh"), "start", dir, LocalPort, "fast")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("start local test cluster: %w", err)
	}
	return "postgres://postgres@127.0.0.1:" + LocalPort + "/postgres?sslmode=disable", nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

func migrationsHash() (string, error) {
	h := sha256.New()
	names, err := fs.Glob(db.Migrations, "migrations/*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := fs.ReadFile(db.Migrations, n)
		if err != nil {
			return "", err
		}
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// withDB returns dsn (a URL) pointing at database name.
func withDB(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}

// dbName is the database dsn (a URL) names.
func dbName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
