// Package stream serves GET /api/v1/stream: each member's events as
// Server-Sent Events, from durable rows (stream_events, migrations 000032,
// 000034 and 000036) that the causes' transactions write, poked across
// instances by PostgreSQL LISTEN/NOTIFY (docs/design.md, "Event stream").
//
// A stream delivers its member's settled rows after the last id it sent,
// in id order; a poke (a NOTIFY naming the member) makes it read again, and
// so does a reconnection of the listener, and rows read but not yet
// settled (a transaction with a smaller id still running) are read again
// shortly. Live delivery and resume are the same read, so what a poke
// loses a later read finds.
package stream

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/inflight"
	"github.com/socialnet/socialapi/internal/notifications"
	"github.com/socialnet/socialapi/internal/ratelimit"
)

// Defaults of Config.
const (
	DefaultWindow       = 15 * time.Minute
	DefaultHeartbeat    = 25 * time.Second
	DefaultRecheck      = 30 * time.Second
	DefaultPerMember    = 4
	DefaultWriteTimeout = 10 * time.Second
	// DefaultMax is the streams one instance holds at most: each costs a
	// goroutine and a few kilobytes while idle, and a read per event.
	DefaultMax = 10_000
)

// Channel is the NOTIFY channel of the causes' triggers (stream_put,
// migration 000036).
const Channel = "stream"

// retryMillis is the reconnection delay every stream suggests first.
const retryMillis = 3000

// pageSize bounds the rows one read of a stream renders.
const pageSize = 100

// readBatch bounds the streams one statement reads for (Hub.reads): with
// pageSize, the rows of one statement.
const readBatch = 100

// Config sizes the hub; zero values take the defaults.
type Config struct {
	Window       time.Duration // events are kept, and a closed stream's presence lasts, this long
	Heartbeat    time.Duration // a comment line this often
	Recheck      time.Duration // the token and member are checked again this often
	PerMember    int           // streams of one member at once, on one instance
	Max          int           // streams at once on one instance
	WriteTimeout time.Duration // a write that blocks longer drops the stream
	ReadQuota    int           // the read policy's quota, reported by a refusal
}

func (c Config) withDefaults() Config {
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.Recheck <= 0 {
		c.Recheck = DefaultRecheck
	}
	if c.PerMember <= 0 {
		c.PerMember = DefaultPerMember
	}
	if c.Max <= 0 {
		c.Max = DefaultMax
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.ReadQuota <= 0 {
		c.ReadQuota = ratelimit.DefaultQuotas.Read
	}
	return c
}

// Authenticator checks a stream's token again (auth.Store).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (auth.Principal, error)
}

// Hub holds one instance's streams: the bounds, the listener that pokes
// them, and the renderers of their events.
type Hub struct {
	cfg   Config
	log   *slog.Logger
	store *store
	authn Authenticator
	rend  renderer
	slots *inflight.Limiter
	// reads answers the streams' reads of their events. Its pool has one
	// slot: an instance's streams run one such statement at a time, and
	// those woken meanwhile (a post's fan-out wakes every present follower
	// at once) wait and are answered together by the next.
	reads *coalesce.Group[readKey, []Row]

	mu       sync.Mutex
	byMember map[int64]map[*conn]struct{}
	// unsettled holds the streams that read events not yet settled, each
	// with the id of the first such event: it settles once the delivery
	// horizon passes it. Any NOTIFY means a transaction ended, which may
	// have moved the horizon, so it makes the hub read the horizon (one
	// statement for all of them, probeHorizon) and poke those it settled;
	// their own timers ask for the same read when no NOTIFY comes. Poking
	// them all at every NOTIFY instead made each event cost several reads
	// under a steady write load, whose running transactions keep the
	// horizon a few milliseconds behind.
	unsettled map[*conn]int64
	probing   bool          // a probeHorizon is running
	reprobe   bool          // and should run again: something may have ended since it read
	closing   chan struct{} // closed when the server shuts down
	closed    bool
	open      sync.WaitGroup

	m hubMetrics
}

// conn is one open stream as the hub sees it.
type conn struct {
	member int64
	poke   chan struct{} // one pending poke at most: pokes coalesce
}

type hubMetrics struct {
	open      prometheus.Gauge
	reads     prometheus.Counter // reads of their events by streams
	readStmts prometheus.Counter // statements that answered them
	unsettled prometheus.Counter // reads that met events not yet settled
	probes    prometheus.Counter // reads of the horizon for them
	sent      *prometheus.CounterVec
	drops     *prometheus.CounterVec
	refetches prometheus.Counter
}

// New returns a Hub. reg receives its metrics (nil: none).
func New(cfg Config, db *sqlx.DB, log *slog.Logger, authn Authenticator, publicURL string, reg prometheus.Registerer) (*Hub, error) {
	cfg = cfg.withDefaults()
	st := newStore(db)
	h := &Hub{
		cfg: cfg, log: log, store: st, authn: authn,
		rend: renderer{notes: notifications.NewStore(db), notesH: notifications.NewHandler(nil, publicURL),
			convs: conversations.NewStore(db), convsH: conversations.NewHandler(nil, publicURL), publicURL: publicURL},
		slots: inflight.New(inflight.Config{What: "event streams", PerMember: cfg.PerMember, Total: cfg.Max,
			Policy: string(ratelimit.Read), Quota: cfg.ReadQuota}),
		byMember:  map[int64]map[*conn]struct{}{},
		unsettled: map[*conn]int64{},
		closing:   make(chan struct{}),
		m: hubMetrics{
			open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "socialapi_stream_open",
				Help: "Event streams open on this instance."}),
			sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "socialapi_stream_events_sent_total",
				Help: "Events sent on event streams, by event."}, []string{"event"}),
			drops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "socialapi_stream_drops_total",
				Help: "Event streams the server closed, by reason: slow (a write blocked past the write timeout), revoked (token or member no longer authenticates), error (the database failed)."}, []string{"reason"}),
			refetches: prometheus.NewCounter(prometheus.CounterOpts{Name: "socialapi_stream_refetches_total",
				Help: "Streams that could not resume and began with a refetch event."}),
			reads: prometheus.NewCounter(prometheus.CounterOpts{Name: "socialapi_stream_reads_total",
				Help: "Reads of their new events by event streams (one per wake-up and page)."}),
			readStmts: prometheus.NewCounter(prometheus.CounterOpts{Name: "socialapi_stream_read_statements_total",
				Help: "Statements that answered the reads of event streams: reads woken together share one."}),
			unsettled: prometheus.NewCounter(prometheus.CounterOpts{Name: "socialapi_stream_unsettled_reads_total",
				Help: "Reads of event streams that met events not yet settled (a transaction with a smaller id was still running), read again later."}),
			probes: prometheus.NewCounter(prometheus.CounterOpts{Name: "socialapi_stream_horizon_reads_total",
				Help: "Reads of the delivery horizon for streams waiting for events to settle (one serves all of them)."}),
		},
	}
	h.reads = coalesce.New(coalesce.NewPool(1), readBatch,
		func(ctx context.Context, k readKey) ([]Row, error) {
			rows, err := h.readMany(ctx, []readKey{k})
			if err != nil {
				return nil, err
			}
			return rows[0], nil
		}, h.readMany)
	if reg != nil {
		for _, c := range []prometheus.Collector{h.m.open, h.m.sent, h.m.drops, h.m.refetches, h.m.reads, h.m.readStmts, h.m.unsettled, h.m.probes} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

// Run listens for pokes on dsn and prunes old events until ctx ends. One
// listener connection per instance: pq.Listener reconnects with backoff,
// and a reconnection pokes every local stream, which then reads its rows:
// what was notified while the connection was down is not missed.
func (h *Hub) Run(ctx context.Context, dsn string) {
	l := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventConnectionAttemptFailed, pq.ListenerEventDisconnected:
			if err != nil {
				h.log.Warn("stream listener: connection lost, reconnecting", slog.String("error", err.Error()))
			}
		case pq.ListenerEventReconnected:
			h.log.Info("stream listener: reconnected")
		}
	})
	defer l.Close()
	if err := l.Listen(Channel); err != nil {
		h.log.Error("stream listener: listen", slog.String("error", err.Error()))
	}
	go h.pruneLoop(ctx)
	go h.presenceLoop(ctx)
	ping := time.NewTicker(time.Minute)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-l.Notify:
			if n == nil { // reconnected: notifications may have been lost
				h.pokeAll()
				continue
			}
			h.pokePayload(n.Extra)
		case <-ping.C:
			go func() { _ = l.Ping() }()
		}
	}
}

// every calls f every d until ctx ends. The hub's background loops use it:
// errors are logged by f and the next turn tries again.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f()
	}
}

// pruneLoop deletes, every window / 15 (at most every minute), the events
// below the delivery horizon this instance saw at least a window ago:
// every such event was deliverable for a whole window, and since pruning
// goes by id, a kept id has every later one kept (store.open relies on it).
func (h *Hub) pruneLoop(ctx context.Context) {
	var seen []horizonAt // oldest first
	every(ctx, min(h.cfg.Window/15, time.Minute), func() {
		now := time.Now()
		if hz, err := h.store.horizon(ctx); err == nil {
			seen = append(seen, horizonAt{now, hz})
		} else if ctx.Err() == nil {
			h.log.Warn("stream: horizon", slog.String("error", err.Error()))
		}
		i := 0
		for i+1 < len(seen) && now.Sub(seen[i+1].at) >= h.cfg.Window {
			i++
		}
		seen = seen[i:]
		if len(seen) == 0 || now.Sub(seen[0].at) < h.cfg.Window {
			return
		}
		if _, err := h.store.prune(ctx, seen[0].horizon, 5000); err != nil && ctx.Err() == nil {
			h.log.Warn("stream: prune", slog.String("error", err.Error()))
		}
	})
}

// horizonAt is a delivery horizon and when it was read.
type horizonAt struct {
	at      time.Time
	horizon int64
}

// readMany answers the reads keys with one statement.
func (h *Hub) readMany(ctx context.Context, keys []readKey) ([][]Row, error) {
	h.m.readStmts.Inc()
	return h.store.read(ctx, keys, pageSize)
}

// presenceLoop extends the presence of the members with a stream open on
// this instance, with one statement every Recheck (every third of the
// window if that is shorter): a presence lasts the window past its last
// extension, and events are written for it meanwhile.
func (h *Hub) presenceLoop(ctx context.Context) {
	every(ctx, min(h.cfg.Recheck, h.cfg.Window/3), func() {
		h.mu.Lock()
		members := make([]int64, 0, len(h.byMember))
		for m := range h.byMember {
			members = append(members, m)
		}
		h.mu.Unlock()
		if len(members) == 0 {
			return
		}
		if err := h.store.touch(ctx, members, h.cfg.Window); err != nil && ctx.Err() == nil {
			h.log.Warn("stream: presence", slog.String("error", err.Error()))
		}
	})
}

// pokePayload pokes the local streams of the members a NOTIFY names, and
// has the horizon read for those waiting for events to settle.
func (h *Hub) pokePayload(payload string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.unsettled) > 0 {
		h.probeLocked()
	}
	for _, s := range strings.Split(payload, ",") {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			continue
		}
		for c := range h.byMember[id] {
			c.signal()
		}
	}
}

func (h *Hub) pokeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cs := range h.byMember {
		for c := range cs {
			c.signal()
		}
	}
}

// awaitSettled registers c as waiting for the horizon to pass the event
// id first (pokePayload, probeHorizon); first 0: c waits for nothing.
func (h *Hub) awaitSettled(c *conn, first int64) {
	h.mu.Lock()
	if first > 0 {
		h.unsettled[c] = first
	} else {
		delete(h.unsettled, c)
	}
	h.mu.Unlock()
}

// probe has the horizon read for the streams waiting for it, and reports
// whether c is one of them (a stream's settle timer calls it, since the
// transaction that holds its events back may end without a NOTIFY, and
// keeps calling it while c waits).
func (h *Hub) probe(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, waiting := h.unsettled[c]
	if waiting {
		h.probeLocked()
	}
	return waiting
}

// probeLocked starts probeHorizon, or has the running one read again.
// h.mu is held.
func (h *Hub) probeLocked() {
	if h.probing {
		h.reprobe = true
		return
	}
	h.probing = true
	go h.probeHorizon()
}

// probeHorizon reads the delivery horizon and pokes the waiting streams it
// settles, again while something asked meanwhile and some still wait. One
// runs at a time, so the statements it costs are bounded by round trips,
// not by NOTIFYs or streams. A failed read ends it: the next NOTIFY or
// settle timer asks again.
func (h *Hub) probeHorizon() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		hz, err := h.store.horizon(ctx)
		cancel()
		h.m.probes.Inc()
		h.mu.Lock()
		if err == nil {
			for c, first := range h.unsettled {
				if first < hz {
					c.signal()
					delete(h.unsettled, c)
				}
			}
		}
		if err != nil || !h.reprobe || len(h.unsettled) == 0 {
			h.probing, h.reprobe = false, false
			h.mu.Unlock()
			if err != nil {
				h.log.Warn("stream: horizon", slog.String("error", err.Error()))
			}
			return
		}
		h.reprobe = false
		h.mu.Unlock()
	}
}

// signal pokes c unless a poke is pending already.
func (c *conn) signal() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// enter registers a stream of member, within the bounds: at most PerMember
// of the member's and Max in all on this instance, else a rate_limited
// error with Retry-After (inflight.Limiter). Shutting down: unavailable.
func (h *Hub) enter(member int64) (*conn, func(), error) {
	leave, err := h.slots.Enter(member)
	if err != nil {
		return nil, nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		leave()
		return nil, nil, errShuttingDown
	}
	c := &conn{member: member, poke: make(chan struct{}, 1)}
	if h.byMember[member] == nil {
		h.byMember[member] = map[*conn]struct{}{}
	}
	h.byMember[member][c] = struct{}{}
	h.open.Add(1)
	h.mu.Unlock()
	h.m.open.Inc()
	return c, func() {
		h.mu.Lock()
		delete(h.unsettled, c)
		delete(h.byMember[member], c)
		if len(h.byMember[member]) == 0 {
			delete(h.byMember, member)
		}
		h.mu.Unlock()
		leave()
		h.m.open.Dec()
		h.open.Done()
	}, nil
}

// Shutdown makes every stream send a last retry hint and close, refuses
// new ones, and waits for them until ctx ends. The server calls it when it
// begins to shut down (http.Server.RegisterOnShutdown): streams never end
// on their own, so the server's drain would otherwise wait for its whole
// timeout.
func (h *Hub) Shutdown(ctx context.Context) {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.open.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Open is the number of streams open on this instance.
func (h *Hub) Open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, cs := range h.byMember {
		n += len(cs)
	}
	return n
}
