package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
)

// Read replicas
//
// A Router sends the reads that tolerate lag to a hot standby and keeps
// everything else on the primary. The seam is the request's context: a read
// goes to a replica only when Route put one there, and only through the
// statements that look for it (Prepared's queries outside a transaction, and
// Reader). So a transaction (WithTx, Prepared.Tx), an ExecContext, a
// statement of a background loop and every request Route was not asked about
// run on the primary, as before; a replica is opt-in, statement by statement.
//
// Read-your-writes: after a member's write, the edge records the primary's
// WAL insert position (MarkWrite) in replica_write_marks, an unlogged table
// of the primary that every instance reads; while that mark lives, Route
// gives the member a replica only if the replica has replayed past it (the
// replay position polled every RouterOptions.Poll only grows, so a cached one
// is a lower bound). A mark lives 2 × MaxLag + 1 s: a replica within MaxLag
// has replayed a write by then, and one past MaxLag gets no reads at all.
//
// Lag is time: how long the primary has had WAL the replica has not
// replayed (lagOf, from the primary's positions sampled at each poll).
//
// Failure: a replica that does not answer its poll, that lags more than
// MaxLag or that is not in recovery gets no new reads until a poll finds it
// well again (each change logged once). A read that fails on a replica for
// any reason other than its request's end runs again on the primary, and a
// statement on a replica may take only half of the request's remaining
// budget (bound), so no request fails because a replica did.

// RouterOptions tune a Router.
type RouterOptions struct {
	// MaxLag is how far behind the primary a replica may be and still
	// serve reads.
	MaxLag time.Duration
	// Poll is how often each replica's replay position is read.
	Poll time.Duration
	// Guard returns the SQL condition that is true while the token whose
	// id is the parameter param (null: none to check) still counts
	// (auth.GuardSQL): Route checks it on the primary, so a revocation is
	// seen at once whatever serves the read.
	Guard func(param string) string
}

// DefaultMaxLag is REPLICA_MAX_LAG's default.
const DefaultMaxLag = 5 * time.Second

// DefaultPoll is how often a Router reads its replicas' positions.
const DefaultPoll = 200 * time.Millisecond

// Router routes lag-tolerant reads to replicas (see above). A nil *Router
// routes nothing: every method is a no-op returning the primary's answer.
type Router struct {
	primary  *sqlx.DB
	prep     *Prepared // the routing statement, planned once per connection
	replicas []*replica
	opt      RouterOptions
	log      *slog.Logger
	routeSQL string
	next     atomic.Uint64 // round robin among eligible replicas

	mu      sync.Mutex
	samples []walSample // the primary's WAL positions, oldest first

	primaryReads atomic.Int64 // routed reads that went to the primary
	fallbacks    atomic.Int64 // replica reads that ran again on the primary
	markFailures atomic.Int64
}

// Replica states, as /readyz and the metrics show them.
const (
	StateStarting    = "starting"    // not polled yet
	StateOK          = "ok"          // serves reads
	StateLagging     = "lagging"     // behind by more than MaxLag
	StateUnreachable = "unreachable" // its poll or a read failed
	StateNotStandby  = "not_standby" // answers but is not in recovery
)

type replica struct {
	name string // host:port/database, without credentials
	db   *sqlx.DB
	r    *Router

	replay atomic.Uint64 // replayed WAL position (pg_last_wal_replay_lsn)
	lagNs  atomic.Int64
	reads  atomic.Int64 // reads routed here

	mu     sync.Mutex
	state  string
	detail string
}

// ReplicaState is one replica's state for /readyz and the metrics.
type ReplicaState struct {
	Name   string
	State  string
	Detail string // why, when not ok
	Lag    time.Duration
	Reads  int64 // reads routed to it
}

// NewRouter returns a Router over primary and replicas (each a pool sized
// like the primary's, keyed by its name). Run must be running for any
// replica to be used.
func NewRouter(primary *sqlx.DB, replicas map[string]*sqlx.DB, names []string, opt RouterOptions, log *slog.Logger) *Router {
	if opt.MaxLag <= 0 {
		opt.MaxLag = DefaultMaxLag
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	guard := "($2::bigint IS NULL OR true)" // no check, but the parameter typed
	if opt.Guard != nil {
		guard = opt.Guard("$2")
	}
	r := &Router{primary: primary, prep: NewPrepared(primary), opt: opt, log: log,
		routeSQL: `SELECT ` + guard + ` AS counts,
		       (SELECT lsn::text FROM replica_write_marks WHERE member_id = $1 AND until > now()) AS lsn`}
	for _, n := range names {
		r.replicas = append(r.replicas, &replica{name: n, db: replicas[n], r: r, state: StateStarting})
	}
	return r
}

// ReplicaName is how a replica URL is shown: host:port/database, never its
// credentials.
func ReplicaName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return "replica"
	}
	return u.Host + u.Path
}

// MarkTTL is how long a write's mark keeps its member's reads off replicas
// that have not replayed it.
func (r *Router) MarkTTL() time.Duration { return 2*r.opt.MaxLag + time.Second }

// Run polls the replicas until ctx ends.
func (r *Router) Run(ctx context.Context) {
	if r == nil || len(r.replicas) == 0 {
		return
	}
	t := time.NewTicker(r.opt.Poll)
	defer t.Stop()
	lastSweep := time.Now()
	for {
		r.poll(ctx)
		if time.Since(lastSweep) > time.Minute {
			lastSweep = time.Now()
			// Expired marks are ignored anyway; this only keeps the table small.
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, _ = r.primary.ExecContext(sctx, `DELETE FROM replica_write_marks WHERE until < now() - interval '1 minute'`)
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// poll reads the primary's WAL position, then each replica's replay
// position.
func (r *Router) poll(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, max(r.opt.Poll, time.Second))
	defer cancel()
	var s string
	if err := r.primary.GetContext(pctx, &s, `SELECT pg_current_wal_lsn()::text`); err == nil {
		if lsn, err := ParseLSN(s); err == nil {
			r.observe(lsn, time.Now())
		}
	}
	var wg sync.WaitGroup
	for _, rp := range r.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rp.poll(pctx)
		}()
	}
	wg.Wait()
}

// walSample is the primary's WAL position when first seen there.
type walSample struct {
	lsn uint64
	at  time.Time
}

// observe records that the primary was at lsn at time at. Of the samples
// older than twice MaxLag only the newest is kept: a replica behind it lags
// at least its age, which is all a decision needs.
func (r *Router) observe(lsn uint64, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.samples); n > 0 && r.samples[n-1].lsn >= lsn {
		return
	}
	r.samples = append(r.samples, walSample{lsn: lsn, at: at})
	cut := 0
	for cut < len(r.samples)-1 && at.Sub(r.samples[cut+1].at) > 2*r.opt.MaxLag {
		cut++
	}
	r.samples = r.samples[cut:]
}

// lagOf is how long the primary has had WAL a replica that replayed up to
// replay lacks: the age of the first sample past replay (0: none is). This
// is time, not bytes, and it does not count an idle primary's quiet as lag.
func (r *Router) lagOf(replay uint64, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.samples {
		if s.lsn > replay {
			return now.Sub(s.at)
		}
	}
	return 0
}

func (rp *replica) poll(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	var row struct {
		InRecovery bool           `db:"in_recovery"`
		Replay     sql.NullString `db:"replay"`
	}
	err := rp.db.GetContext(ctx, &row, `SELECT pg_is_in_recovery() AS in_recovery, pg_last_wal_replay_lsn()::text AS replay`)
	switch {
	case err != nil:
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return // stopping
		}
		rp.set(StateUnreachable, err.Error())
		return
	case !row.InRecovery || !row.Replay.Valid:
		rp.set(StateNotStandby, "pg_is_in_recovery() is false: not a standby")
		return
	}
	replay, err := ParseLSN(row.Replay.String)
	if err != nil {
		rp.set(StateUnreachable, err.Error())
		return
	}
	if replay > rp.replay.Load() {
		rp.replay.Store(replay)
	}
	lag := rp.r.lagOf(replay, time.Now())
	rp.lagNs.Store(int64(lag))
	if lag > rp.r.opt.MaxLag {
		rp.set(StateLagging, fmt.Sprintf("replay %s behind, more than REPLICA_MAX_LAG %s", lag.Round(time.Millisecond), rp.r.opt.MaxLag))
		return
	}
	rp.set(StateOK, "")
}

// set changes rp's state, logging a change once.
func (rp *replica) set(state, detail string) {
	rp.mu.Lock()
	prev := rp.state
	rp.state, rp.detail = state, detail
	rp.mu.Unlock()
	if prev == state {
		return
	}
	log := rp.r.log
	if log == nil {
		return
	}
	if state == StateOK {
		log.Info("replica serves reads", slog.String("replica", rp.name), slog.String("was", prev))
	} else {
		log.Warn("replica skipped: reads go elsewhere until it recovers", slog.String("replica", rp.name),
			slog.String("state", state), slog.String("detail", detail))
	}
}

func (rp *replica) ok() bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.state == StateOK
}

// States returns each replica's state, in configuration order.
func (r *Router) States() []ReplicaState {
	if r == nil {
		return nil
	}
	out := make([]ReplicaState, 0, len(r.replicas))
	for _, rp := range r.replicas {
		rp.mu.Lock()
		out = append(out, ReplicaState{Name: rp.name, State: rp.state, Detail: rp.detail,
			Lag: time.Duration(rp.lagNs.Load()), Reads: rp.reads.Load()})
		rp.mu.Unlock()
	}
	return out
}

// PrimaryReads is how many routed reads went to the primary (a fresh mark,
// no replica well or none caught up), and Fallbacks how many replica reads
// failed and ran again on the primary.
func (r *Router) PrimaryReads() int64 { return r.primaryReads.Load() }

// Fallbacks: see PrimaryReads.
func (r *Router) Fallbacks() int64 { return r.fallbacks.Load() }

// Replicas reports whether r has any replica.
func (r *Router) Replicas() bool { return r != nil && len(r.replicas) > 0 }

// Route decides where the lag-tolerant reads of memberID's request go, on
// the primary in one statement: whether the token guard (null: none) still
// counts, and the member's write mark. counts false means the token no
// longer counts (the caller authenticates in full and refuses it). The
// returned context carries the replica chosen, if any; on a primary error
// it is ctx unchanged with counts false, so the request runs as without
// replicas.
func (r *Router) Route(ctx context.Context, memberID int64, guard any) (context.Context, bool) {
	if !r.Replicas() {
		return ctx, false
	}
	var row struct {
		Counts sql.NullBool   `db:"counts"`
		LSN    sql.NullString `db:"lsn"`
	}
	if err := sqlx.GetContext(OnPrimary(ctx), r.prep, &row, r.routeSQL, memberID, guard); err != nil || !row.Counts.Bool {
		r.primaryReads.Add(1)
		return ctx, false
	}
	var need uint64
	if row.LSN.Valid {
		var err error
		if need, err = ParseLSN(row.LSN.String); err != nil {
			r.primaryReads.Add(1)
			return ctx, true
		}
	}
	n := len(r.replicas)
	start := int(r.next.Add(1) % uint64(n))
	for i := range n {
		rp := r.replicas[(start+i)%n]
		if rp.ok() && rp.replay.Load() >= need {
			rp.reads.Add(1)
			return context.WithValue(ctx, routeKey{}, rp), true
		}
	}
	r.primaryReads.Add(1)
	return ctx, true
}

// MarkWrite records that memberID wrote: until the mark expires, their reads
// go only to replicas that have replayed the primary's WAL insert position,
// which is past every commit acknowledged so far.
func (r *Router) MarkWrite(ctx context.Context, memberID int64) error {
	if !r.Replicas() {
		return nil
	}
	_, err := r.primary.ExecContext(ctx, `
		INSERT INTO replica_write_marks AS m (member_id, lsn, until)
		VALUES ($1, pg_current_wal_insert_lsn(), now() + $2 * interval '1 millisecond')
		ON CONFLICT (member_id) DO UPDATE SET lsn = GREATEST(m.lsn, EXCLUDED.lsn), until = EXCLUDED.until`,
		memberID, r.MarkTTL().Milliseconds())
	if err != nil {
		r.markFailures.Add(1)
	}
	return err
}

// routeKey is the context key of the replica Route chose.
type routeKey struct{}

// replicaOf returns the replica ctx's reads go to, or nil: the primary.
func replicaOf(ctx context.Context) *replica {
	rp, _ := ctx.Value(routeKey{}).(*replica)
	return rp
}

// OnPrimary returns ctx whose reads go to the primary: for a read that
// follows a write of the same request.
func OnPrimary(ctx context.Context) context.Context {
	if replicaOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, routeKey{}, (*replica)(nil))
}

// OnReplica reports the name of the replica ctx's reads go to, if any.
func OnReplica(ctx context.Context) (string, bool) {
	if rp := replicaOf(ctx); rp != nil {
		return rp.name, true
	}
	return "", false
}

// bound returns ctx for a statement on rp: it ends halfway through what is
// left of ctx's budget (if ctx has one), so that a standby that stopped
// answering leaves the other half to the primary (failed then sends the
// statement there). It ends with ctx, not before: rows are read after the
// statement returns.
func (rp *replica) bound(ctx context.Context) context.Context {
	d, ok := ctx.Deadline()
	if !ok {
		return ctx
	}
	bctx, cancel := context.WithDeadline(ctx, time.Now().Add(time.Until(d)/2))
	context.AfterFunc(ctx, cancel)
	return bctx
}

// failed handles err, which a read on rp returned: a replica that cannot
// be reached is skipped until a poll finds it well. It reports whether the
// read should run again on the primary: any error but the request's own end.
func (rp *replica) failed(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	switch sqlState(err) {
	case "25006", "40001", "40P01", "57014":
		// A write sent to the standby, a conflict with recovery or a
		// statement timeout: the replica itself is fine.
	default:
		// Past its half of the budget (bound) the statement may only have
		// been slow: the poll, itself bounded, tells a silent standby.
		if IsUnavailable(nil, err) && !errors.Is(err, context.DeadlineExceeded) {
			rp.set(StateUnreachable, err.Error())
		}
	}
	rp.r.fallbacks.Add(1)
	return true
}

// Reader returns what ctx's reads of db run on: db, or the replica Route
// chose, falling back to db when a statement fails there.
func Reader(ctx context.Context, db *sqlx.DB) sqlx.QueryerContext {
	if rp := replicaOf(ctx); rp != nil {
		return fallback{rp: rp, primary: db}
	}
	return db
}

type fallback struct {
	rp      *replica
	primary sqlx.QueryerContext
}

func (f fallback) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := f.rp.db.QueryContext(f.rp.bound(ctx), q, args...)
	if f.rp.failed(ctx, err) {
		return f.primary.QueryContext(ctx, q, args...)
	}
	return rows, err
}

func (f fallback) QueryxContext(ctx context.Context, q string, args ...any) (*sqlx.Rows, error) {
	rows, err := f.rp.db.QueryxContext(f.rp.bound(ctx), q, args...)
	if f.rp.failed(ctx, err) {
		return f.primary.QueryxContext(ctx, q, args...)
	}
	return rows, err
}

func (f fallback) QueryRowxContext(ctx context.Context, q string, args ...any) *sqlx.Row {
	row := f.rp.db.QueryRowxContext(f.rp.bound(ctx), q, args...)
	if f.rp.failed(ctx, row.Err()) {
		return f.primary.QueryRowxContext(ctx, q, args...)
	}
	return row
}

// ParseLSN parses a WAL position as PostgreSQL prints it (X/Y, hexadecimal).
func ParseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("pg: %q is not a WAL position", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pg: %q is not a WAL position", s)
	}
	return h<<32 | l, nil
}

// Target is where a context's reads go: the primary (the zero Target) or
// one replica. It is comparable, so work shared between requests (a
// coalesced batch) can be kept apart by target and run on it (Context).
type Target struct{ rp *replica }

// TargetOf returns where ctx's reads go.
func TargetOf(ctx context.Context) Target { return Target{replicaOf(ctx)} }

// Context returns ctx with its reads going to t.
func (t Target) Context(ctx context.Context) context.Context {
	if t.rp == nil {
		return OnPrimary(ctx)
	}
	return context.WithValue(ctx, routeKey{}, t.rp)
}
