package pg

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jmoiron/sqlx"
)

// maxPrepared bounds how many statement texts a Prepared keeps; past it,
// further texts run unprepared. The hot paths have a handful each.
const maxPrepared = 256

// Prepared runs queries as server-side prepared statements, prepared once
// per text (and, by database/sql, once per pooled connection that runs
// them). lib/pq otherwise sends every statement unnamed, so PostgreSQL parses
// and plans it on every execution: for the feed's one-statement page, planning
// cost as much as executing (docs/performance-journal.md). It is a sqlx.QueryerContext, for the read paths.
//
// Its queries outside a transaction run on the replica a Router chose for
// the request (router.go), if any, with statements prepared there; Tx is
// always the primary's.
type Prepared struct {
	db    *sqlx.DB
	mu    sync.RWMutex
	stmts map[string]*sqlx.Stmt
	alt   sync.Map // *replica → *Prepared over its pool
}

// on returns the Prepared of ctx's reads: p, or p's twin over the replica
// the request was routed to.
func (p *Prepared) on(ctx context.Context) (*Prepared, *replica) {
	rp := replicaOf(ctx)
	if rp == nil {
		return p, nil
	}
	if q, ok := p.alt.Load(rp); ok {
		return q.(*Prepared), rp
	}
	q, _ := p.alt.LoadOrStore(rp, NewPrepared(rp.db))
	return q.(*Prepared), rp
}

// NewPrepared returns a Prepared over db.
func NewPrepared(db *sqlx.DB) *Prepared {
	return &Prepared{db: db, stmts: map[string]*sqlx.Stmt{}}
}

var _ sqlx.QueryerContext = (*Prepared)(nil)

// stmt returns the prepared statement of query, preparing it on first use;
// nil when the cache is full. A failed prepare (the database down, say) is
// not remembered: the next call tries again.
func (p *Prepared) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	p.mu.RLock()
	st, ok := p.stmts[query]
	full := len(p.stmts) >= maxPrepared
	p.mu.RUnlock()
	if ok || full {
		return st, nil
	}
	// Prepared outside the lock: a slow database delays this caller only.
	st, err := p.db.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.stmts[query]; ok {
		st.Close()
		return prev, nil
	}
	p.stmts[query] = st
	return st, nil
}

// QueryContext implements sqlx.QueryerContext.
func (p *Prepared) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return plainRows(p.QueryxContext(ctx, query, args...))
}

// plainRows unwraps sqlx rows.
func plainRows(rows *sqlx.Rows, err error) (*sql.Rows, error) {
	if err != nil {
		return nil, err
	}
	return rows.Rows, nil
}

// QueryxContext implements sqlx.QueryerContext.
func (p *Prepared) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	if q, rp := p.on(ctx); rp != nil {
		rows, err := q.queryx(rp.bound(ctx), query, args)
		if !rp.failed(ctx, err) {
			return rows, err
		}
	}
	return p.queryx(ctx, query, args)
}

func (p *Prepared) queryx(ctx context.Context, query string, args []any) (*sqlx.Rows, error) {
	st, err := p.stmt(ctx, query)
	return queryx(ctx, st, err, p.db, query, args)
}

// queryx runs query as st, or through plain when there is no st (the cache
// is full).
func queryx(ctx context.Context, st *sqlx.Stmt, err error, plain sqlx.QueryerContext, query string, args []any) (*sqlx.Rows, error) {
	if err != nil {
		return nil, err
	}
	if st == nil {
		return plain.QueryxContext(ctx, query, args...)
	}
	return st.QueryxContext(ctx, args...)
}

// QueryRowxContext implements sqlx.QueryerContext. When the statement cannot
// be prepared it runs unprepared, so the row carries the database's error.
func (p *Prepared) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	if q, rp := p.on(ctx); rp != nil {
		row := q.queryRowx(rp.bound(ctx), query, args)
		if !rp.failed(ctx, row.Err()) {
			return row
		}
	}
	return p.queryRowx(ctx, query, args)
}

func (p *Prepared) queryRowx(ctx context.Context, query string, args []any) *sqlx.Row {
	st, err := p.stmt(ctx, query)
	if err != nil || st == nil {
		return p.db.QueryRowxContext(ctx, query, args...)
	}
	return st.QueryRowxContext(ctx, args...)
}

// Tx returns a sqlx.QueryerContext that runs p's statements within tx, on
// the transaction's connection (prepared there once, like any other use).
func (p *Prepared) Tx(tx *sqlx.Tx) sqlx.QueryerContext { return preparedTx{p: p, tx: tx} }

type preparedTx struct {
	p  *Prepared
	tx *sqlx.Tx
}

// stmt returns query prepared within the transaction, or nil to run it
// unprepared there (the cache is full).
func (t preparedTx) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	st, err := t.p.stmt(ctx, query)
	if err != nil || st == nil {
		return nil, err
	}
	return t.tx.StmtxContext(ctx, st), nil
}

func (t preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return plainRows(t.QueryxContext(ctx, query, args...))
}

func (t preparedTx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	st, err := t.stmt(ctx, query)
	return queryx(ctx, st, err, t.tx, query, args)
}

func (t preparedTx) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	st, err := t.stmt(ctx, query)
	if err != nil || st == nil {
		return t.tx.QueryRowxContext(ctx, query, args...)
	}
	return st.QueryRowxContext(ctx, args...)
}

// Close releases every prepared statement.
func (p *Prepared) Close() error {
	p.alt.Range(func(k, q any) bool {
		q.(*Prepared).Close()
		p.alt.Delete(k)
		return true
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, st := range p.stmts {
		st.Close()
		delete(p.stmts, q)
	}
	return nil
}
