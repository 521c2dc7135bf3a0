package pg

import (
	"context"
	"database/sql/driver"
	"net"
	"sync"
	"time"

	"github.com/lib/pq"
)

// cancelGrace is how long a connection may keep waiting for PostgreSQL's
// answer once lib/pq has started cancelling its query: time for the cancel to
// take effect normally, after which the read gives up.
const cancelGrace = 500 * time.Millisecond

// connector opens lib/pq connections whose network waits cannot outlive the
// context of the operation that started them.
//
// lib/pq honours a cancelled context by sending PostgreSQL a cancel request
// over a second connection and then keeps waiting for the answer on the
// first; when the server or the network has stopped answering (a black hole,
// a half-open connection, a dead host) that wait never ends. Connection
// start-up ignores the context altogether. So each connection gets its own
// dialer, which bounds start-up by the Connect context and, when lib/pq dials
// again to send that connection's cancel request, gives the connection's
// reads a deadline of cancelGrace (and the cancel request's own connection
// as much). The connection is discarded afterwards (lib/pq marks it bad once
// its context is done).
type connector struct {
	cfg pq.Config
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	pc, err := pq.NewConnectorConfig(c.cfg)
	if err != nil {
		return nil, err
	}
	d := &connDialer{ctx: ctx}
	pc.Dialer(d)
	conn, err := pc.Connect(ctx)
	if err != nil {
		d.established()
		return nil, err
	}
	if !d.established() {
		// The context ended just as start-up finished: the socket may
		// already carry an expired deadline.
		_ = conn.Close()
		return nil, driver.ErrBadConn
	}
	return &pqConn{Conn: conn, d: d}, nil
}

func (c *connector) Driver() driver.Driver { return &pq.Driver{} }

// connDialer dials the sockets of one lib/pq connection: first its own, then
// (only to cancel a query) short-lived ones.
type connDialer struct {
	net.Dialer
	ctx context.Context // of Connect

	mu   sync.Mutex
	own  net.Conn
	stop func() bool // ends the start-up watch of own
	up   bool        // start-up is over; further dials send cancel requests
	// cancelled is set once a cancel request was sent: the connection's
	// socket now has a read deadline, so it must never be reused.
	cancelled bool
}

func (d *connDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d *connDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d *connDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	if d.up {
		own := d.own
		d.cancelled = true
		d.mu.Unlock()
		if own != nil {
			_ = own.SetReadDeadline(time.Now().Add(cancelGrace))
		}
		// The cancel request itself is bounded too: lib/pq waits for its
		// answer before a prepared statement's execution returns, and a
		// database that stopped answering would hold that for 10 s.
		cctx, cancel := context.WithTimeout(ctx, cancelGrace)
		defer cancel()
		c, err := d.Dialer.DialContext(cctx, network, address)
		if err != nil {
			return nil, err
		}
		_ = c.SetDeadline(time.Now().Add(cancelGrace))
		return c, nil
	}
	d.mu.Unlock()
	c, err := d.Dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		d.stop() // an earlier attempt of this start-up (e.g. sslmode=prefer retrying without TLS)
	}
	d.own = c
	d.stop = context.AfterFunc(d.ctx, func() { _ = c.SetDeadline(time.Now()) })
	return c, nil
}

// expire makes the connection's pending and future reads and writes fail.
func (d *connDialer) expire() {
	d.mu.Lock()
	own := d.own
	d.mu.Unlock()
	if own != nil {
		_ = own.SetDeadline(time.Now())
	}
}

// established ends start-up; it reports false when the context ended first.
func (d *connDialer) established() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.up = true
	if d.stop == nil {
		return true
	}
	return d.stop()
}

// pqConn is a lib/pq connection whose BEGIN honours the context: lib/pq
// sends it before it starts watching the context, so a database that stops
// answering would hold the transaction's caller forever. Everything else is
// lib/pq's own.
type pqConn struct {
	driver.Conn
	d *connDialer
}

var (
	_ driver.ConnBeginTx        = (*pqConn)(nil)
	_ driver.QueryerContext     = (*pqConn)(nil)
	_ driver.ExecerContext      = (*pqConn)(nil)
	_ driver.ConnPrepareContext = (*pqConn)(nil)
	_ driver.Pinger             = (*pqConn)(nil)
	_ driver.SessionResetter    = (*pqConn)(nil)
	_ driver.Validator          = (*pqConn)(nil)
	_ driver.NamedValueChecker  = (*pqConn)(nil)
)

func (c *pqConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	stop := context.AfterFunc(ctx, c.d.expire)
	defer stop()
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *pqConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *pqConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *pqConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c *pqConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

// ResetSession and IsValid retire a connection that sent a cancel request.
// lib/pq marks such a connection bad itself, except after cancelling a
// prepared statement's execution: reused, its expired read deadline would
// fail the next statement after sending it, leaving PostgreSQL running it
// for nobody (still holding or waiting for locks).
func (c *pqConn) ResetSession(ctx context.Context) error {
	if c.d.wasCancelled() {
		return driver.ErrBadConn
	}
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *pqConn) IsValid() bool { return !c.d.wasCancelled() && c.Conn.(driver.Validator).IsValid() }

func (d *connDialer) wasCancelled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancelled
}

func (c *pqConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}
