package follows_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// postsOfEveryKind gives the member one post of each visibility, so that a
// profile's post count tells whether its viewer follows them.
func postsOfEveryKind(db *sqlx.DB, memberID int64) {
	db.MustExec(`INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'pub', 'public'), ($1, 'fol', 'followers'), ($1, 'priv', 'private')`, memberID)
}

// profileNow is the profile as GetProfile reads it once nothing else is
// written: what ToggleProfile must have returned for the last toggle.
func profileNow(t *testing.T, db *sqlx.DB, viewerID int64, handle string) hydrate.Profile {
	t.Helper()
	p, err := hydrate.GetProfile(context.Background(), db, viewerID, handle)
	if err != nil {
		t.Fatalf("GetProfile(%d, %s): %v", viewerID, handle, err)
	}
	return p
}

func TestToggleProfile(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "dave")
	postsOfEveryKind(db, ids["bob"])
	postsOfEveryKind(db, ids["alice"])
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'dave'`)
	s := follows.NewStore(db)

	steps := []struct {
		follower, handle string
		wantFollowing    bool
	}{
		{"carol", "bob", true},
		{"alice", "BOB", true},  // bob's followers-only post now counts
		{"bob", "alice", true},  // followed back
		{"alice", "bob", false}, // bob still follows alice
		{"alice", "bob", true},
		{"carol", "bob", false},
	}
	for i, st := range steps {
		following, got, err := s.ToggleProfile(ctx, ids[st.follower], st.handle)
		if err != nil || following != st.wantFollowing {
			t.Fatalf("step %d: ToggleProfile(%s, %s) = %v, %v, want %v", i, st.follower, st.handle, following, err, st.wantFollowing)
		}
		if diff := cmp.Diff(profileNow(t, db, ids[st.follower], st.handle), got); diff != "" {
			t.Errorf("step %d: ToggleProfile(%s, %s) profile (-GetProfile +got):\n%s", i, st.follower, st.handle, diff)
		}
	}
	for handle, code := range map[string]apperr.Code{"alice": apperr.CannotFollowSelf, "zed": apperr.NotFound, "dave": apperr.NotFound} {
		t.Run(handle, func(t *testing.T) {
			if _, _, err := s.ToggleProfile(ctx, ids["alice"], handle); !apperr.Is(err, code) {
				t.Errorf("ToggleProfile(alice, %s) error = %v, want %s", handle, err, code)
			}
		})
	}
	checkConsistent(t, db)
}

// TestToggleProfileAfterWaiting holds another follow write of one of the
// members open while ToggleProfile runs, so that the statement takes its
// snapshot, waits for that write's locks and goes on once it commits: the
// profile must show the state after both writes, which the snapshot does
// not hold.
func TestToggleProfileAfterWaiting(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		before        [][2]string // follows made first
		held          [2]string   // the toggle committed while alice waits
		suspend       bool        // or bob's suspension
		block         [2]string   // or a block: blocker, blocked
		wantFollowing bool
		wantCode      apperr.Code
	}{
		// bob's following count and whether he follows alice change.
		"reverse follow":   {held: [2]string{"bob", "alice"}, wantFollowing: true},
		"reverse unfollow": {before: [][2]string{{"bob", "alice"}}, held: [2]string{"bob", "alice"}, wantFollowing: true},
		// bob's, then alice's, follower count changes.
		"another follower of bob":   {held: [2]string{"carol", "bob"}, wantFollowing: true},
		"another follower of alice": {held: [2]string{"carol", "alice"}, wantFollowing: true},
		// The pair itself: the toggle alice waits for unfollows, hers follows again.
		"same pair": {before: [][2]string{{"alice", "bob"}}, held: [2]string{"alice", "bob"}, wantFollowing: true},
		// It follows: alice's insert meets it, and her toggle unfollows.
		"same pair, lost race": {held: [2]string{"alice", "bob"}, wantFollowing: false},
		"suspended":            {suspend: true, wantCode: apperr.NotFound},
		// A block committed while alice waits: her statement's snapshot
		// holds neither the block nor its cut of the follow edge.
		"bob blocks alice":                   {block: [2]string{"bob", "alice"}, wantCode: apperr.NotFound},
		"alice blocks bob":                   {block: [2]string{"alice", "bob"}, wantCode: apperr.MemberBlocked},
		"bob blocks alice, who follows":      {before: [][2]string{{"alice", "bob"}}, block: [2]string{"bob", "alice"}, wantCode: apperr.NotFound},
		"alice blocks bob, whom she follows": {before: [][2]string{{"alice", "bob"}}, block: [2]string{"alice", "bob"}, wantCode: apperr.MemberBlocked},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.New(t)
			ctx := context.Background()
			ids := pgtest.Members(t, db, "alice", "bob", "carol")
			postsOfEveryKind(db, ids["bob"])
			s := follows.NewStore(db)
			for _, f := range tt.before {
				if _, _, err := s.Toggle(ctx, ids[f[0]], f[1]); err != nil {
					t.Fatal(err)
				}
			}
			tx, err := db.BeginTxx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			switch {
			case tt.suspend:
				_, err = tx.ExecContext(ctx, `UPDATE members SET suspended_at = now() WHERE id = $1`, ids["bob"])
			case tt.block[0] != "":
				err = blockTx(ctx, tx, ids[tt.block[0]], ids[tt.block[1]])
			default:
				_, _, err = follows.ToggleTx(ctx, tx, ids[tt.held[0]], tt.held[1])
			}
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				following bool
				p         hydrate.Profile
				err       error
			}
			done := make(chan answer, 1)
			go func() {
				following, p, err := s.ToggleProfile(ctx, ids["alice"], "bob")
				done <- answer{following, p, err}
			}()
			waitForLockWait(t, db)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			a := <-done
			if tt.wantCode != "" {
				if !apperr.Is(a.err, tt.wantCode) {
					t.Errorf("ToggleProfile(alice, bob) error = %v, want %s", a.err, tt.wantCode)
				}
				if rows := count(t, db, `SELECT count(*) FROM follows`); rows != 0 {
					t.Errorf("follows rows = %d, want 0", rows)
				}
				return
			}
			if a.err != nil || a.following != tt.wantFollowing {
				t.Fatalf("ToggleProfile(alice, bob) = %v, %v, want %v", a.following, a.err, tt.wantFollowing)
			}
			if diff := cmp.Diff(profileNow(t, db, ids["alice"], "bob"), a.p); diff != "" {
				t.Errorf("profile (-GetProfile after both writes +got):\n%s", diff)
			}
			checkConsistent(t, db)
		})
	}
}

// blockTx writes a block of blocked by blocker in tx as internal/relations
// does, as far as follow writes can tell: under both members' locks it
// writes the block, deletes both follow edges with their counters and
// notifications, and bumps the blocker's block_count.
func blockTx(ctx context.Context, tx *sqlx.Tx, blocker, blocked int64) error {
	for _, q := range []string{
		`SELECT id FROM members WHERE id IN ($1, $2) ORDER BY id FOR NO KEY UPDATE`,
		`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)`,
		`UPDATE members m SET following_count = following_count - (SELECT count(*) FROM follows f WHERE f.follower_id = m.id AND f.followee_id IN ($1, $2)),
		                      follower_count = follower_count - (SELECT count(*) FROM follows f WHERE f.followee_id = m.id AND f.follower_id IN ($1, $2)),
		                      block_count = block_count + CASE WHEN m.id = $1 THEN 1 ELSE 0 END
		  WHERE m.id IN ($1, $2)`,
		`DELETE FROM notifications WHERE type = 'follow' AND (recipient_id, actor_id) IN (($1, $2), ($2, $1))`,
		`DELETE FROM follows WHERE (follower_id, followee_id) IN (($1, $2), ($2, $1))`,
	} {
		if _, err := tx.ExecContext(ctx, q, blocker, blocked); err != nil {
			return err
		}
	}
	return nil
}

// waitForLockWait returns once a statement of db's database waits for a
// lock.
func waitForLockWait(t *testing.T, db *sqlx.DB) {
	t.Helper()
	for range 1000 {
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no statement came to wait for the held locks")
}

// TestToggleProfileConcurrentFollowers: members following one member at
// once take effect in some serial order, so the follower counts they are
// answered are 1..n, each once, and n-1..0 when they all unfollow.
func TestToggleProfileConcurrentFollowers(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	handles := []string{"star", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"}
	ids := pgtest.Members(t, db, handles...)
	postsOfEveryKind(db, ids["star"])
	s := follows.NewStore(db)
	for round, wantFollowing := range []bool{true, false} {
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			counts []int
		)
		for _, h := range handles[1:] {
			wg.Go(func() {
				following, p, err := s.ToggleProfile(context.Background(), ids[h], "star")
				if err != nil {
					t.Errorf("round %d: ToggleProfile(%s, star): %v", round, h, err)
					return
				}
				wantPosts := map[bool]int{true: 2, false: 1}[wantFollowing]
				if following != wantFollowing || p.ViewerFollows != following || p.Posts != wantPosts || p.Following != 0 {
					t.Errorf("round %d: ToggleProfile(%s, star) = %v, %+v, want following %v, %d posts", round, h, following, p, wantFollowing, wantPosts)
				}
				mu.Lock()
				counts = append(counts, p.Followers)
				mu.Unlock()
			})
		}
		wg.Wait()
		n := len(handles) - 1
		want := make([]int, n)
		for i := range want {
			want[i] = i + 1
			if !wantFollowing {
				want[i] = i
			}
		}
		sort.Ints(counts)
		if diff := cmp.Diff(want, counts); diff != "" {
			t.Errorf("round %d: follower counts answered (-want +got):\n%s", round, diff)
		}
	}
	checkConsistent(t, db)
}

// TestToggleProfileIsOneStatement counts what reaches PostgreSQL: each
// toggle with its profile is one execution of a statement prepared once,
// without a transaction around it.
func TestToggleProfileIsOneStatement(t *testing.T) {
	t.Parallel()
	pc, err := pq.NewConnector(pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	var n counter
	db := sqlx.NewDb(sql.OpenDB(countingConnector{pc, &n}), "postgres")
	defer db.Close()
	// Calls one after another reuse the one idle connection, so a statement is
	// prepared on it once. Two, not one: pg.Prepared.Tx prepares through the
	// pool, which a transaction holding the only connection would wait for.
	db.SetMaxOpenConns(2)
	ids := pgtest.Members(t, db, "alice", "bob")
	s := follows.NewStore(db)
	ctx := context.Background()
	if _, _, err := s.ToggleProfile(ctx, ids["alice"], "bob"); err != nil { // prepares
		t.Fatal(err)
	}
	n.statements.Store(0)
	n.prepares.Store(0)
	const toggles = 5
	for range toggles {
		if _, _, err := s.ToggleProfile(ctx, ids["alice"], "bob"); err != nil {
			t.Fatal(err)
		}
	}
	if got, prepared := n.statements.Load(), n.prepares.Load(); got != toggles || prepared != 0 {
		t.Errorf("%d toggles sent %d statements and %d prepares, want %d and 0", toggles, got, prepared, toggles)
	}
}

// counter counts what a countingConnector's connections send.
type counter struct{ statements, prepares atomic.Int64 }

// countingConnector wraps lib/pq's connections to count the statements
// they run (BEGIN and COMMIT included) and the statements they prepare.
type countingConnector struct {
	driver.Connector
	n *counter
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c.n}, nil
}

type countingConn struct {
	driver.Conn
	n *counter
}

func (c countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.n.statements.Add(1)
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countingTx{tx, c.n}, nil
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.statements.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.statements.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.n.prepares.Add(1)
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return countingStmt{st, c.n}, nil
}

func (c countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

type countingTx struct {
	driver.Tx
	n *counter
}

func (t countingTx) Commit() error   { t.n.statements.Add(1); return t.Tx.Commit() }
func (t countingTx) Rollback() error { t.n.statements.Add(1); return t.Tx.Rollback() }

type countingStmt struct {
	driver.Stmt
	n *counter
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.n.statements.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.n.statements.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}
