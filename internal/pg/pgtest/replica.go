package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// Read replicas in tests
//
// A test that needs a read replica gets a real one: a hot standby streaming
// from the test cluster (scripts/localpg.sh standby: pg_basebackup -R, so
// primary_conninfo, and hot_standby). A physical standby replicates the whole
// cluster, so every per-test database NewURL creates appears on it once
// replayed. The server is TEST_REPLICA_URL (a standby of TEST_DATABASE_URL's
// cluster, like it a URL of any database); when TEST_DATABASE_URL is unset
// too, the project-local standby is started here, as `make test` does. A
// run that sets TEST_DATABASE_URL without TEST_REPLICA_URL fails the tests
// that need one: a missing replica is a broken set-up, never a skip.
//
// The local standby replays every transaction ReplicaDelay late
// (recovery_min_apply_delay), so that it is always behind: a read that
// wrongly goes to it misses the writes just made.

// LocalReplicaPort is the port of the project-local test standby.
const LocalReplicaPort = "54331"

// ReplicaDelay is how late the project-local test standby replays.
const ReplicaDelay = "250ms"

var (
	replicaOnce  sync.Once
	replicaAdmin string
	replicaErr   error
)

// ReplicaURL returns the URL, on the test standby, of the database whose
// primary URL is dsn (from NewURL), once the standby has replayed its
// creation.
func ReplicaURL(t testing.TB, dsn string) string {
	t.Helper()
	replicaOnce.Do(func() { replicaErr = setupReplica() })
	if replicaErr != nil {
		t.Fatalf("pgtest: %v", replicaErr)
	}
	name := dbName(dsn)
	u := withDB(replicaAdmin, name)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		db, err := sqlx.Open("postgres", u)
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return u
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pgtest: database %s never appeared on the standby %s: %v", name, redact(replicaAdmin), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ReplicaDelayOf returns the recovery_min_apply_delay of the test standby.
func ReplicaDelayOf(t testing.TB, replicaURL string) time.Duration {
	t.Helper()
	db, err := sqlx.Open("postgres", replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ms int64
	if err := db.Get(&ms, `SELECT setting::bigint FROM pg_settings WHERE name = 'recovery_min_apply_delay'`); err != nil {
		t.Fatalf("pgtest: read the standby's recovery_min_apply_delay: %v", err)
	}
	return time.Duration(ms) * time.Millisecond
}

func setupReplica() error {
	replicaAdmin = os.Getenv("TEST_REPLICA_URL")
	if replicaAdmin != "" {
		return nil
	}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		return fmt.Errorf("TEST_DATABASE_URL is set but TEST_REPLICA_URL is not: give the URL of a hot standby of that cluster " +
			"(scripts/localpg.sh standby PRIMARY_PORT DIR PORT 250ms), or unset both and let the tests start their own")
	}
	once.Do(func() { setupErr = setup() }) // the primary first
	if setupErr != nil {
		return setupErr
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(root, ".data", "pgtest.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	cmd := exec.Command(filepath.Join(root, "scripts", "localpg.sh"), "standby", LocalPort,
		filepath.Join(root, ".data", "pgtest-standby"), LocalReplicaPort, ReplicaDelay)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start local test standby: %w", err)
	}
	replicaAdmin = "postgres://postgres@127.0.0.1:" + LocalReplicaPort + "/postgres?sslmode=disable"
	return nil
}
