package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/logsink"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/polls"
	"github.com/socialnet/socialapi/internal/ratelimit"
	"github.com/socialnet/socialapi/internal/search"
	"github.com/socialnet/socialapi/internal/stream"
	"github.com/socialnet/socialapi/internal/timeline"
	"github.com/socialnet/socialapi/internal/views"
)

// Config is read once, from the environment, by loadConfig: the one place
// defaults are resolved. Every value is final; envVars documents each.
type Config struct {
	DatabaseURL      string
	ReplicaURLs      []string      // none: every statement on the primary
	ReplicaMaxLag    time.Duration // how far behind a replica may serve reads
	Addr             string
	PublicURL        string
	LogFormat        string // json or text
	LogLevel         slog.Level
	BodyLimit        int64
	RequestTimeout   time.Duration
	ShutdownTimeout  time.Duration
	DBMaxConns       int
	MaxActive        int           // 0: no bound
	StatementTimeout time.Duration // 0: the role's setting
	ReadPerMinute    int
	WritePerMinute   int
	RedisURL         string // empty: budgets in process
	MetricsAddr      string // "off": no metrics listener
	RateWindow       time.Duration
	TrustedProxies   []*net.IPNet
	CORSOrigins      []string
	PostCacheEntries int           // 0: no cache
	CoalesceSlots    int           // 0: every read alone
	SearchCacheTTL   time.Duration // 0: matches not kept
	SearchPerMember  int           // 0: no bound
	SearchActive     int           // 0: no bound
	SearchTimeout    time.Duration // 0: no budget of its own
	ViewsFlushEvery  time.Duration
	DormantAfter     time.Duration // 0: never
	FanOutHelpers    int           // 0: none
	TrimEvery        time.Duration
	Stream           stream.Config
	PollCloseEvery   time.Duration
}

// envVar documents one environment variable of `serve`. envVars is the one
// list: `serve --help` prints it and docs/configuration.md is generated from
// it (TestConfigurationDoc holds the two, and loadConfig, to it).
type envVar struct {
	Name    string
	Default string
	Meaning string
}

var envVars = []envVar{
	{"DATABASE_URL", "(required)", "PostgreSQL URL, e.g. `postgres://user@127.0.0.1:5432/social?sslmode=disable`"},
	{"DATABASE_REPLICA_URLS", "none: every statement on the primary", "comma-separated PostgreSQL URLs of hot standbys streaming from `DATABASE_URL`; the reads that tolerate lag go to a well one, each member still reading their own writes (docs/deployment.md, \"Read replicas\"); each gets a pool of `DB_MAX_CONNS`"},
	{"REPLICA_MAX_LAG", "`5s`", "a replica whose replay is further behind the primary than this gets no reads until it catches up"},
	{"ADDR", "`:8080`", "listen address of the API"},
	{"PUBLIC_URL", "`http://localhost:<port of ADDR>`", "absolute base URL of the service, at most 200 characters (so every URL the API writes stays within the contract's `maxLength`), used for every URL in bodies and headers; never derived from the `Host` header"},
	{"LOG_FORMAT", "`json`", "`json` or `text`"},
	{"LOG_LEVEL", "`info`", "`debug`, `info`, `warn` or `error`; logs go to stderr, one line per request at `info`"},
	{"BODY_LIMIT_BYTES", "`65536`", "maximum request body size; a larger body answers 413"},
	{"REQUEST_TIMEOUT", "`10s`", "budget of one request, database included; past it the request answers 503"},
	{"SHUTDOWN_TIMEOUT", "`20s`", "how long SIGTERM waits for in-flight requests"},
	{"DB_MAX_CONNS", "4 per CPU + `DB_COALESCE_SLOTS` + `TIMELINE_FANOUT_HELPERS` + 2, at least 16", "connection pool size; each instance also holds one more connection, the event stream's listener (`LISTEN`): keep instances × (this + 1) below PostgreSQL's `max_connections`"},
	{"MAX_ACTIVE_REQUESTS", "4 per CPU, at most `DB_MAX_CONNS`", "API requests served at once; the others wait their turn, fairly between clients, within `REQUEST_TIMEOUT` (then 503); `0`: no bound"},
	{"DB_STATEMENT_TIMEOUT", "`5s`", "`statement_timeout` of the server's database connections (keep it below `REQUEST_TIMEOUT`), and their `idle_in_transaction_session_timeout`: PostgreSQL stops a longer statement and the request answers 503; `0` keeps the database role's own setting; migrations, `seed`, `check` and `generate` are not bounded by it"},
	{"POST_CACHE_ENTRIES", "`50000`", "posts whose unchanging parts (body, author, media, tags, mentions) each instance keeps in memory for reads (about 50 MB at the default); counters, reactions, polls, deletions and who may see a post are always read live; `0` disables"},
	{"DB_COALESCE_SLOTS", "1 per CPU, at least 2", "statements of coalesced reads (single post, feed pages) in flight at once; reads that arrive while all are busy are answered together, each as if alone; these routes take no `MAX_ACTIVE_REQUESTS` place; `0`: every read alone"},
	{"SEARCH_CACHE_TTL", "`10s`", "how long each instance keeps what a search text matched; the items shown are always read live, but a new match may appear, and totals change, this much later; `0` disables"},
	{"SEARCH_MAX_PER_MEMBER", "`2`", "searches of one member reading their matches from the database at once on each instance; one more answers 429 at once; searches served from kept matches are not counted; `0`: no bound"},
	{"SEARCH_MAX_ACTIVE", "half of `MAX_ACTIVE_REQUESTS` (or of `DB_MAX_CONNS` when smaller), at least 1", "the same for all members' searches together, so other requests always find a place and a connection; `0`: no bound"},
	{"SEARCH_TIMEOUT", "`2s`", "how long one search may run; a longer one is stopped and answers 503; `0`: only `REQUEST_TIMEOUT` and `DB_STATEMENT_TIMEOUT` bound it"},
	{"VIEWS_FLUSH_INTERVAL", "`10s`", "how often each instance adds the post views it counted in memory to the database; other instances see a view up to this much later, and a crash loses at most this much"},
	{"TIMELINE_DORMANT_AFTER", "`336h`", "how long a member may go without using any token before new posts stop being written to their home timeline; their next home read rebuilds it in the same request; `0`: never"},
	{"TIMELINE_FANOUT_HELPERS", "1 per 2 CPUs, at least 1", "fan-out loops that join the timeline worker's own while new posts queue faster than one loop writes them; `0`: none"},
	{"TIMELINE_TRIM_INTERVAL", "`5m`", "how often the timeline worker cuts the home timelines its fan-out has grown past their cap back to it"},
	{"POLL_CLOSE_INTERVAL", "`30s`", "how often each instance looks for polls whose `expires_at` has passed and notifies their authors and voters (`poll` notifications, dated when the poll closed); instances share the work and each close is notified once; a close is notified up to this much after it happens"},
	{"RATE_LIMIT_READ", "`120`", "read requests (GET, HEAD) per member per window"},
	{"RATE_LIMIT_WRITE", "`60`", "write requests (POST, DELETE) per member per window"},
	{"RATE_LIMIT_WINDOW", "`1m`", "the period those quotas refill over, evenly"},
	{"REDIS_URL", "none: budgets kept in process", "`redis://host:port/db` shared by every instance for rate-limit budgets; if Redis fails the API keeps serving, limiting in process, and says so in `/readyz`"},
	{"METRICS_ADDR", "`127.0.0.1:9091`", "operator listener for Prometheus metrics at `/metrics`; `off` disables it; keep it off the public network"},
	{"CORS_ORIGINS", "none: no CORS headers", "comma-separated browser origins allowed to call the API cross-origin, e.g. `https://app.example`, or `*` for any"},
	{"TRUSTED_PROXIES", "none: addresses from the connection", "comma-separated CIDRs of reverse proxies whose `X-Forwarded-For` names the client"},
	{"STREAM_RESUME_WINDOW", "`15m`", "how long an event stream's events are kept after they happen, and a member's events are still written after their last stream closed: a client that reconnects within it with `Last-Event-ID` receives what it missed, later ones get a `refetch` event"},
	{"STREAM_HEARTBEAT", "`25s`", "how often an open event stream sends a comment line, so that proxies keep the connection"},
	{"STREAM_RECHECK", "`30s`", "how often an open event stream checks its token and member again; a revoked or expired token or a suspended member has its streams closed within this (at most `60s`)"},
	{"STREAM_PER_MEMBER", "`4`", "event streams one member may hold open on one instance; one more answers 429"},
	{"STREAM_MAX", "`10000`", "event streams one instance holds open in all; one more answers 429"},
	{"STREAM_WRITE_TIMEOUT", "`10s`", "an event stream whose client takes no bytes for this long is closed (the client resumes with `Last-Event-ID`)"},
}

// envDoc is envVars as `serve --help` prints them.
var envDoc = func() string {
	var b strings.Builder
	b.WriteString("Environment (docs/configuration.md says more):\n")
	for _, v := range envVars {
		def := "(default " + strings.ReplaceAll(v.Default, "`", "") + ")"
		if v.Default == "(required)" {
			def = v.Default
		}
		fmt.Fprintf(&b, "  %-24s %s %s\n", v.Name, strings.ReplaceAll(v.Meaning, "`", ""), def)
	}
	return strings.TrimRight(b.String(), "\n")
}()

// configurationTable is envVars as the Markdown table of
// docs/configuration.md.
func configurationTable() string {
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, v := range envVars {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, v.Default, v.Meaning)
	}
	return b.String()
}

func loadConfig(getenv func(string) string) (Config, error) {
	c := Config{
		DatabaseURL: getenv("DATABASE_URL"),
		Addr:        orDefault(getenv("ADDR"), ":8080"),
		LogFormat:   orDefault(getenv("LOG_FORMAT"), "json"),
		RedisURL:    getenv("REDIS_URL"),
		MetricsAddr: orDefault(getenv("METRICS_ADDR"), "127.0.0.1:9091"),
	}
	var err error
	if c.ReplicaURLs, err = replicaURLs(getenv("DATABASE_REPLICA_URLS")); err != nil {
		return c, err
	}
	if c.ReplicaMaxLag, err = envDuration(getenv, "REPLICA_MAX_LAG", pg.DefaultMaxLag); err != nil {
		return c, err
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return c, fmt.Errorf("LOG_FORMAT must be json or text, got %q", c.LogFormat)
	}
	if err := c.LogLevel.UnmarshalText([]byte(orDefault(getenv("LOG_LEVEL"), "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	if c.BodyLimit, err = envInt(getenv, "BODY_LIMIT_BYTES", 64<<10, 1024, 64<<20); err != nil {
		return c, err
	}
	cpus := runtime.GOMAXPROCS(0)
	slots, err := envInt(getenv, "DB_COALESCE_SLOTS", defaultSlots(cpus), 0, 10_000)
	if err != nil {
		return c, err
	}
	c.CoalesceSlots = int(slots)
	helpers, err := envInt(getenv, "TIMELINE_FANOUT_HELPERS", defaultHelpers(cpus), 0, 64)
	if err != nil {
		return c, err
	}
	c.FanOutHelpers = int(helpers)
	maxConns, err := envInt(getenv, "DB_MAX_CONNS", defaultConns(cpus, slots, helpers), 1, 1000)
	if err != nil {
		return c, err
	}
	c.DBMaxConns = int(maxConns)
	active, err := envInt(getenv, "MAX_ACTIVE_REQUESTS", defaultActive(maxConns, cpus), 0, 100_000)
	if err != nil {
		return c, err
	}
	c.MaxActive = int(active)
	postCache, err := envInt(getenv, "POST_CACHE_ENTRIES", hydrate.DefaultCacheEntries, 0, 10_000_000)
	if err != nil {
		return c, err
	}
	c.PostCacheEntries = int(postCache)
	perMember, err := envInt(getenv, "SEARCH_MAX_PER_MEMBER", search.DefaultPerMember, 0, 10_000)
	if err != nil {
		return c, err
	}
	c.SearchPerMember = int(perMember)
	searches, err := envInt(getenv, "SEARCH_MAX_ACTIVE", int64(search.DefaultActive(c.MaxActive, c.DBMaxConns)), 0, 100_000)
	if err != nil {
		return c, err
	}
	c.SearchActive = int(searches)
	rd, err := envInt(getenv, "RATE_LIMIT_READ", int64(ratelimit.DefaultQuotas.Read), 1, 1_000_000)
	if err != nil {
		return c, err
	}
	wr, err := envInt(getenv, "RATE_LIMIT_WRITE", int64(ratelimit.DefaultQuotas.Write), 1, 1_000_000)
	if err != nil {
		return c, err
	}
	c.ReadPerMinute, c.WritePerMinute = int(rd), int(wr)
	if c.RequestTimeout, err = envDuration(getenv, "REQUEST_TIMEOUT", 10*time.Second); err != nil {
		return c, err
	}
	if c.ShutdownTimeout, err = envDuration(getenv, "SHUTDOWN_TIMEOUT", 20*time.Second); err != nil {
		return c, err
	}
	if c.StatementTimeout, err = envDurationOrOff(getenv, "DB_STATEMENT_TIMEOUT", 5*time.Second); err != nil {
		return c, fmt.Errorf("%w (or 0 for the role's setting)", err)
	} else if c.StatementTimeout != 0 && c.StatementTimeout < time.Millisecond {
		return c, fmt.Errorf("DB_STATEMENT_TIMEOUT must be at least 1ms (or 0 for the role's setting), got %q", getenv("DB_STATEMENT_TIMEOUT"))
	}
	if c.SearchCacheTTL, err = envDurationOrOff(getenv, "SEARCH_CACHE_TTL", search.DefaultMatchTTL); err != nil {
		return c, fmt.Errorf("%w (or 0 for none)", err)
	}
	if c.SearchTimeout, err = envDurationOrOff(getenv, "SEARCH_TIMEOUT", search.DefaultTimeout); err != nil {
		return c, fmt.Errorf("%w (or 0 for none)", err)
	}
	if c.ViewsFlushEvery, err = envDuration(getenv, "VIEWS_FLUSH_INTERVAL", views.DefaultFlushEvery); err != nil {
		return c, err
	}
	if c.DormantAfter, err = envDurationOrOff(getenv, "TIMELINE_DORMANT_AFTER", timeline.DormantAfter); err != nil {
		return c, fmt.Errorf("%w (or 0 for never)", err)
	}
	if c.TrimEvery, err = envDuration(getenv, "TIMELINE_TRIM_INTERVAL", timeline.DefaultTrimEvery); err != nil {
		return c, err
	}
	if c.PollCloseEvery, err = envDuration(getenv, "POLL_CLOSE_INTERVAL", polls.DefaultEvery); err != nil {
		return c, err
	}
	if c.RateWindow, err = envDuration(getenv, "RATE_LIMIT_WINDOW", ratelimit.DefaultWindow); err != nil {
		return c, err
	}
	if c.Stream, err = streamConfig(getenv); err != nil {
		return c, err
	}
	c.Stream.ReadQuota = c.ReadPerMinute
	for _, cidr := range strings.Split(getenv("TRUSTED_PROXIES"), ",") {
		if cidr = strings.TrimSpace(cidr); cidr == "" {
			continue
		}
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			return c, fmt.Errorf("TRUSTED_PROXIES: %q is not a CIDR such as 10.0.0.0/8", cidr)
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	pub := getenv("PUBLIC_URL")
	if pub == "" {
		port := "8080"
		if i := strings.LastIndex(c.Addr, ":"); i >= 0 && c.Addr[i+1:] != "" {
			port = c.Addr[i+1:]
		}
		pub = "http://localhost:" + port
	}
	if c.PublicURL, err = checkPublicURL(pub); err != nil {
		return c, err
	}
	if c.CORSOrigins, err = corsOrigins(getenv("CORS_ORIGINS")); err != nil {
		return c, err
	}
	return c, nil
}

// replicaURLs parses DATABASE_REPLICA_URLS: comma-separated postgres://
// URLs, each at most once.
func replicaURLs(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "postgres" && p.Scheme != "postgresql") || p.Host == "" {
			return nil, fmt.Errorf("DATABASE_REPLICA_URLS: an entry is not a postgres://host[:port]/database URL (entry %d)", len(out)+1)
		}
		if seen[pg.ReplicaName(u)] {
			return nil, fmt.Errorf("DATABASE_REPLICA_URLS: %s is listed twice", pg.ReplicaName(u))
		}
		seen[pg.ReplicaName(u)] = true
		out = append(out, u)
	}
	return out, nil
}

// streamConfig reads the event stream's variables.
func streamConfig(getenv func(string) string) (stream.Config, error) {
	var c stream.Config
	var err error
	if c.Window, err = envDuration(getenv, "STREAM_RESUME_WINDOW", stream.DefaultWindow); err != nil {
		return c, err
	}
	if c.Heartbeat, err = envDuration(getenv, "STREAM_HEARTBEAT", stream.DefaultHeartbeat); err != nil {
		return c, err
	}
	if c.Recheck, err = envDuration(getenv, "STREAM_RECHECK", stream.DefaultRecheck); err != nil {
		return c, err
	}
	if c.Recheck > 60*time.Second {
		return c, fmt.Errorf("STREAM_RECHECK must be at most 60s (the bound the contract documents), got %q", getenv("STREAM_RECHECK"))
	}
	if c.WriteTimeout, err = envDuration(getenv, "STREAM_WRITE_TIMEOUT", stream.DefaultWriteTimeout); err != nil {
		return c, err
	}
	per, err := envInt(getenv, "STREAM_PER_MEMBER", stream.DefaultPerMember, 1, 1000)
	if err != nil {
		return c, err
	}
	total, err := envInt(getenv, "STREAM_MAX", stream.DefaultMax, 1, 1_000_000)
	if err != nil {
		return c, err
	}
	c.PerMember, c.Max = int(per), int(total)
	return c, nil
}

// corsOrigins parses CORS_ORIGINS: "*" or a comma-separated list of
// scheme://host[:port] origins.
func corsOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
				(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
				return nil, fmt.Errorf("CORS_ORIGINS: %q is not an origin like https://app.example or *", o)
			}
			o = u.Scheme + "://" + u.Host
		}
		out = append(out, o)
	}
	return out, nil
}

// maxPublicURL bounds PUBLIC_URL, the prefix of every URL the API writes, so
// that those URLs stay within the maxLength openapi.yaml gives them.
const maxPublicURL = 200

// checkPublicURL accepts an absolute http(s) URL without query or fragment,
// of at most maxPublicURL characters, and returns it without a trailing slash.
func checkPublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("PUBLIC_URL must be an absolute http(s) URL without credentials, query or fragment, got %q", s)
	}
	pub := strings.TrimRight(u.String(), "/")
	if len(pub) > maxPublicURL {
		return "", fmt.Errorf("PUBLIC_URL must be at most %d characters, got %d", maxPublicURL, len(pub))
	}
	return pub, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func envInt(getenv func(string) string, name string, def, lo, hi int64) (int64, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be an integer from %d to %d, got %q", name, lo, hi, v)
	}
	return n, nil
}

// The concurrency defaults follow one formula from the CPUs the process may
// use (GOMAXPROCS) and from each other, so that no constant caps throughput
// independently of the machine (docs/configuration.md, "Concurrency"):
//
//	DB_COALESCE_SLOTS        CPUs, at least 2
//	TIMELINE_FANOUT_HELPERS  CPUs ÷ 2, at least 1
//	MAX_ACTIVE_REQUESTS      4 × CPUs, at most DB_MAX_CONNS
//	DB_MAX_CONNS             4 × CPUs + slots + helpers + 2, at least 16
//	SEARCH_MAX_ACTIVE        half of MAX_ACTIVE_REQUESTS (search.DefaultActive)
//
// The pool holds every request the gate admits, every coalesced statement,
// every fan-out loop, the timeline worker's own loop and the views flush,
// so that none of them waits for a connection another kind holds.

// defaultSlots is DB_COALESCE_SLOTS's default: one coalesced statement in
// flight per CPU (two at least, so that one slow statement never stalls
// every coalesced read).
func defaultSlots(cpus int) int64 { return int64(max(2, cpus)) }

// defaultHelpers is TIMELINE_FANOUT_HELPERS's default: the fan-out keeps
// up with the writes the gate admits on more CPUs.
func defaultHelpers(cpus int) int64 { return int64(max(1, cpus/2)) }

// defaultConns is DB_MAX_CONNS's default (see the formula above).
func defaultConns(cpus int, slots, helpers int64) int64 {
	return max(16, int64(4*cpus)+slots+helpers+2)
}

// defaultActive is MAX_ACTIVE_REQUESTS's default: four requests per CPU,
// at most one per pool connection. More only queue inside the database,
// where a freed connection goes to a random waiter: fewer places keep the
// throughput and cut the tail latency (docs/performance-journal.md,
// "Request gate").
func defaultActive(maxConns int64, cpus int) int64 {
	return min(maxConns, int64(4*cpus))
}

// envDurationOrOff is envDuration that also takes "0": off, returned as 0.
func envDurationOrOff(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	if getenv(name) == "0" {
		return 0, nil
	}
	return envDuration(getenv, name, def)
}

func envDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration such as 10s, got %q", name, v)
	}
	return d, nil
}

// newLogger logs to w, a buffered sink (logsink): lines are written in
// batches, warnings and errors at once.
func newLogger(c Config, w *logsink.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if c.LogFormat == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(logsink.Handler(h, w))
}
