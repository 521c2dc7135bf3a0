package auth

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg"
)

// Recalling a token without a round trip
//
// A token's member, scope and expiry never change; whether it still counts
// does (revocation by the operator CLI, a suspended member), and the contract
// allows no grace for that: a revoked token fails from the next request on.
// So the store remembers the principals of tokens it authenticated
// (Recall), and a request that recalls one is only provisional: the hot
// statements carry the token check as a one-time filter (GuardSQL, with
// GuardArg) and confirm the principal when they return rows (Confirm); the
// edge authenticates in full before answering any read that nothing
// confirmed (an empty page, an error, a handler without a guarded
// statement). Only the writes whose one write statement carries the check
// (a token that no longer counts writes nothing) may act for a recalled
// principal; the edge lists them (httpapi.guardedWrites) and every other
// write authenticates in full first. The check is thus made
// once per request as before, but inside the statement the request runs
// anyway: one database round trip instead of two.

// maxRecalled bounds the recalled tokens; past it the memory is dropped and
// fills again (tokens in use come back at their next request).
const maxRecalled = 1 << 16

type recalled struct {
	p       Principal
	touched time.Time // last_used_at is at least this recent
}

type recallCache struct {
	m sync.Map // [sha256.Size]byte → *recalled
	n atomic.Int64
}

func (c *recallCache) put(key [sha256.Size]byte, p Principal, touched time.Time) {
	if _, loaded := c.m.Swap(key, &recalled{p: p, touched: touched}); !loaded {
		if c.n.Add(1) > maxRecalled {
			c.m.Clear()
			c.n.Store(0)
		}
	}
}

func (c *recallCache) drop(key [sha256.Size]byte) {
	if _, loaded := c.m.LoadAndDelete(key); loaded {
		c.n.Add(-1)
	}
}

// Pending is the confirmation a recalled principal awaits. Recall makes one
// per call, and the copies of the principal a request passes around (the one
// in its context included) share it: a guarded statement that returned rows
// (Confirm), or the edge once it authenticated the token in full, confirms
// the principal for the whole request.
type Pending struct{ confirmed atomic.Bool }

// Confirm records that the token counted.
func (pe *Pending) Confirm() { pe.confirmed.Store(true) }

// Confirmed reports whether Confirm was called.
func (pe *Pending) Confirmed() bool { return pe.confirmed.Load() }

// Recall returns the principal of a token Authenticate accepted before,
// without asking the database, as a provisional principal (Provisional is
// true until a guarded statement or Authenticate confirms it). It misses
// for tokens it does not hold and tokens expired by now. When the token's
// last_used_at is due to be written again (lastUsedEvery), the write is
// left to a background batch (touchLater), off the request's path.
func (s *Store) Recall(tok string) (Principal, bool) {
	key := hashKey(tok)
	v, ok := s.recall.m.Load(key)
	if !ok {
		return Principal{}, false
	}
	r := v.(*recalled)
	now := s.now()
	if r.p.TokenExpiresAt != nil && !r.p.TokenExpiresAt.After(now) {
		return Principal{}, false
	}
	if now.Sub(r.touched) >= lastUsedEvery {
		// Replaced rather than changed: other requests read r.
		s.recall.m.Store(key, &recalled{p: r.p, touched: now})
		s.touchLater(r.p.TokenID, now)
	}
	p := r.p
	p.pending = &Pending{}
	return p, true
}

// touchEvery is how often the batched last_used_at writes run.
const touchEvery = time.Second

// touches collects the last_used_at writes of recalled tokens. A goroutine
// writes them to api_token_uses in one statement every touchEvery while
// there are any, and ends when there are none. Writes still pending when the
// process stops are lost: last_used_at is coarse by design (lastUsedEvery),
// and at most touchEvery of it goes.
type touches struct {
	mu      sync.Mutex
	due     map[int64]time.Time // token id → when it was used
	running bool
}

func (s *Store) touchLater(tokenID int64, at time.Time) {
	s.touch.mu.Lock()
	defer s.touch.mu.Unlock()
	if s.touch.due == nil {
		s.touch.due = map[int64]time.Time{}
	}
	s.touch.due[tokenID] = at
	if !s.touch.running {
		s.touch.running = true
		go s.touchLoop()
	}
}

func (s *Store) touchLoop() {
	for {
		time.Sleep(touchEvery)
		s.touch.mu.Lock()
		due := s.touch.due
		s.touch.due = nil
		if len(due) == 0 {
			s.touch.running = false
			s.touch.mu.Unlock()
			return
		}
		s.touch.mu.Unlock()
		// A failure (a read-only or unreachable database) leaves
		// last_used_at as it was, as Authenticate does; reads go on.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.touchBatch(ctx, due)
		cancel()
	}
}

// touchBatchSQL records the uses of a batch of tokens ($1, used at $2), never
// moving a token's last use back. Tokens deleted since they were recalled are
// left out, so that one of them does not fail the whole batch.
const touchBatchSQL = `
	INSERT INTO api_token_uses AS u (token_id, last_used_at)
	SELECT v.id, v.at FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, at)
	 WHERE EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = v.id)
	ON CONFLICT (token_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
	 WHERE u.last_used_at < EXCLUDED.last_used_at`

// touchBatch writes due (token id → when it was used) in one statement.
func (s *Store) touchBatch(ctx context.Context, due map[int64]time.Time) error {
	// In id order (the plan keeps unnest's order): the batches of several
	// servers then lock the rows they share in the same order rather than
	// deadlock on them.
	ids := make([]int64, 0, len(due))
	for id := range due {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ats := make([]time.Time, len(ids))
	for i, id := range ids {
		ats[i] = due[id]
	}
	_, err := s.db.ExecContext(ctx, touchBatchSQL, pq.Array(ids), pq.Array(ats))
	if pg.ConstraintOf(err) == usesTokenFK {
		// A token whose delete had not committed when the statement
		// began passed the EXISTS filter. Once more: the filter now sees
		// it gone.
		_, err = s.db.ExecContext(ctx, touchBatchSQL, pq.Array(ids), pq.Array(ats))
	}
	return err
}

// Provisional reports whether p was recalled and nothing has confirmed it
// yet: the request must not be answered before Authenticate does.
func (p Principal) Provisional() bool { return p.pending != nil && !p.pending.Confirmed() }

// Pending returns the confirmation a recalled p awaits, or nil when p was
// authenticated in full.
func (p Principal) Pending() *Pending { return p.pending }

// Guard returns the token id a statement of ctx's request must check when
// the request acts for a provisional principal (GuardArg).
func Guard(ctx context.Context) (tokenID int64, ok bool) {
	p, found := FromContext(ctx)
	if !found || !p.Provisional() {
		return 0, false
	}
	return p.TokenID, true
}

// counts is a condition true while the token whose id is the parameter
// param still counts: not revoked, not deleted, its member not suspended.
// (Expiry cannot change and Recall checks it.) Written as a scalar subquery,
// it is evaluated once per statement (an InitPlan), and a statement that
// ANDs it to its WHERE returns no rows for a token that no longer counts.
func counts(param string) string {
	return `(SELECT true FROM api_tokens gt JOIN members gm ON gm.id = gt.member_id
	          WHERE gt.id = ` + param + ` AND gt.revoked_at IS NULL AND gm.suspended_at IS NULL) IS TRUE`
}

// Confirm records that a statement guarded by GuardSQL for ctx's request
// returned rows, so the token counted when the statement ran (a no-op for a
// principal that is not provisional).
func Confirm(ctx context.Context) {
	if p, ok := FromContext(ctx); ok && p.pending != nil {
		p.pending.Confirm()
	}
}

// GuardArg is the argument of GuardSQL for ctx's request: the token id of a
// provisional principal, else nil (no check).
func GuardArg(ctx context.Context) any {
	if tok, ok := Guard(ctx); ok {
		return tok
	}
	return nil
}

// GuardSQL is the token check of a statement whose parameter param is
// GuardArg: true when it is null (the principal was authenticated in full),
// else true while the token still counts. One prepared statement thus serves
// requests with and without a provisional principal, and the check runs only
// when the parameter is set.
func GuardSQL(param string) string {
	return "(" + param + "::bigint IS NULL OR " + counts(param) + ")"
}
