// Command socialapi is the social network's v1 JSON HTTP API server and its
// operator tools: serve, migrate, seed, member and token administration.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/socialnet/socialapi/db"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/httpapi"
	"github.com/socialnet/socialapi/internal/logsink"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/polls"
	"github.com/socialnet/socialapi/internal/ratelimit"
	"github.com/socialnet/socialapi/internal/seed"
	"github.com/socialnet/socialapi/internal/stream"
	"github.com/socialnet/socialapi/internal/synth"
	"github.com/socialnet/socialapi/internal/timeline"
	"github.com/socialnet/socialapi/internal/views"
)

// specYAML is the contract as written, served at /api/v1/openapi.yaml.
//
//go:embed openapi.yaml
var specYAML []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRoot(os.Getenv, os.Stdout, os.Stderr).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "error:", describe(err))
		os.Exit(1)
	}
}

// describe renders an error for an operator: the client-safe detail plus
// field problems for classified errors, the chain otherwise.
func describe(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Code != apperr.Internal && ae.Code != apperr.Unavailable {
		s := ae.Detail
		for _, f := range ae.Fields {
			if f.Detail != ae.Detail {
				s += fmt.Sprintf(" (%s: %s)", f.Pointer+f.Parameter, f.Detail)
			}
		}
		return s
	}
	return err.Error()
}

func newRoot(getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "socialapi",
		Short:         "Social network v1 JSON HTTP API server and operator tools",
		Long:          "socialapi serves the social network's v1 JSON API (see openapi.yaml) and administers its database.\n\n" + envDoc,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(serveCmd(getenv), migrateCmd(getenv), seedCmd(getenv), checkCmd(getenv), generateCmd(getenv), memberCmd(getenv), tokenCmd(getenv))
	return root
}

// openDB reads the configuration and connects, for the admin commands.
func openDB(ctx context.Context, getenv func(string) string) (*sqlx.DB, Config, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, cfg, err
	}
	if cfg.DatabaseURL == "" {
		return nil, cfg, errors.New("DATABASE_URL is not set")
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pool := pg.DefaultPool
	pool.MaxOpen, pool.MaxIdle = cfg.DBMaxConns, cfg.DBMaxConns
	conn, err := pg.Open(cctx, cfg.DatabaseURL, pool)
	if err != nil {
		return nil, cfg, err
	}
	return conn, cfg, nil
}

func serveCmd(getenv func(string) string) *cobra.Command {
	var migrate bool
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API until SIGINT/SIGTERM, then drain in-flight requests",
		Long:  "Serve the v1 API on ADDR. Health checks: GET /healthz (process up), GET /readyz (database reachable).\n\n" + envDoc,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cfg, err := loadConfig(getenv)
			if err != nil {
				return err
			}
			if cfg.DatabaseURL == "" {
				return errors.New("DATABASE_URL is not set")
			}
			// Closed last (defers run in reverse): every line logged at
			// shutdown is written.
			sink := logsink.New(os.Stderr, logsink.Every)
			defer sink.Close()
			log := newLogger(cfg, sink)
			// The concurrency in force, derived from GOMAXPROCS unless set:
			// an operator (and make bench-cores) reads what a machine got.
			log.Info("concurrency", slog.Int("gomaxprocs", runtime.GOMAXPROCS(0)),
				slog.Int("db_coalesce_slots", cfg.CoalesceSlots), slog.Int("timeline_fanout_helpers", cfg.FanOutHelpers),
				slog.Int("db_max_conns", cfg.DBMaxConns), slog.Int("max_active_requests", cfg.MaxActive))
			pool := pg.DefaultPool
			pool.MaxOpen, pool.MaxIdle = cfg.DBMaxConns, cfg.DBMaxConns
			pool.StatementTimeout = cfg.StatementTimeout
			conn, err := pg.Connect(cfg.DatabaseURL, pool)
			if err != nil {
				return err
			}
			defer conn.Close()
			// A database that is down or restarting is not fatal: serve, answer
			// 503 and report not-ready on /readyz until it is back. A refused
			// login or a missing database is a configuration error.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = conn.PingContext(pctx)
			cancel()
			if err != nil {
				if migrate || !pg.IsUnavailable(nil, err) {
					return fmt.Errorf("ping database: %w", err)
				}
				log.Warn("database unreachable: serving, not ready until it answers", slog.String("error", err.Error()))
			}
			if migrate {
				if err := pg.MigrateUp(conn); err != nil {
					return err
				}
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			viewCounter := views.New(conn, log, cfg.ViewsFlushEvery)
			defer func() {
				fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := viewCounter.Close(fctx); err != nil {
					log.Warn("views not flushed at shutdown", slog.String("error", err.Error()))
				}
			}()
			// The fan-out worker stops with the server; what it has not
			// done stays in feed_outbox for the next start (or another
			// instance), and reads merge it meanwhile.
			wctx, stopWorker := context.WithCancel(ctx)
			defer stopWorker()
			worker := timeline.NewWorker(conn, log)
			worker.TrimEvery, worker.DormantAfter, worker.Helpers = cfg.TrimEvery, cfg.DormantAfter, cfg.FanOutHelpers
			go worker.Run(wctx)
			// One listener connection per instance pokes its streams.
			hub, err := stream.New(cfg.Stream, conn, log, auth.NewStore(conn, nil), cfg.PublicURL, reg)
			if err != nil {
				return err
			}
			go hub.Run(wctx, cfg.DatabaseURL)
			// Polls close with time, not with a request: each instance looks
			// for the closes to notify (internal/polls shares them out).
			closer := polls.NewCloser(conn, log)
			closer.Every = cfg.PollCloseEvery
			go closer.Run(wctx)
			router, closeReplicas, err := openReplicas(cfg, pool, conn, log)
			if err != nil {
				return err
			}
			defer closeReplicas()
			// Stopped before the replicas' pools close (defers run in reverse).
			rctx, stopRouter := context.WithCancel(ctx)
			defer stopRouter()
			go router.Run(rctx)
			h, err := httpapi.New(httpapi.Config{
				Views:          viewCounter,
				PostCache:      cfg.PostCacheEntries,
				CoalesceSlots:  cfg.CoalesceSlots,
				MaxActive:      cfg.MaxActive,
				SearchCache:    cfg.SearchCacheTTL,
				Metrics:        reg,
				PublicURL:      cfg.PublicURL,
				BodyLimit:      cfg.BodyLimit,
				RequestTimeout: cfg.RequestTimeout,
				RateLimits:     ratelimit.Quotas{Read: cfg.ReadPerMinute, Write: cfg.WritePerMinute, Window: cfg.RateWindow},
				RedisURL:       cfg.RedisURL,
				TrustedProxies: cfg.TrustedProxies,
				CORSOrigins:    cfg.CORSOrigins,
				SearchBounds:   httpapi.SearchBounds{PerMember: cfg.SearchPerMember, Active: cfg.SearchActive, Timeout: cfg.SearchTimeout},
				Router:         router,
				Stream:         hub,
			}, conn, log, specYAML)
			if err != nil {
				return err
			}
			if cfg.MetricsAddr != "off" {
				mux := http.NewServeMux()
				mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
				go func() {
					if err := httpapi.Serve(ctx, log.With(slog.String("listener", "metrics")), cfg.MetricsAddr, mux, time.Second); err != nil {
						log.Error("metrics listener", slog.String("error", err.Error()))
					}
				}()
			}
			// Streams get a retry hint and close as the drain begins.
			closeStreams := func() {
				sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
				defer cancel()
				hub.Shutdown(sctx)
			}
			return httpapi.Serve(ctx, log, cfg.Addr, h, cfg.ShutdownTimeout, closeStreams)
		},
	}
	c.Flags().BoolVar(&migrate, "migrate", false, "apply pending migrations before serving")
	return c
}

// openReplicas prepares a pool like the primary's for each of
// DATABASE_REPLICA_URLS (connected on demand: a replica that is down at
// start is only skipped) and the Router over them; nil without replicas.
func openReplicas(cfg Config, pool pg.PoolConfig, primary *sqlx.DB, log *slog.Logger) (*pg.Router, func(), error) {
	if len(cfg.ReplicaURLs) == 0 {
		return nil, func() {}, nil
	}
	dbs := map[string]*sqlx.DB{}
	var names []string
	closeAll := func() {
		for _, db := range dbs {
			db.Close()
		}
	}
	for _, u := range cfg.ReplicaURLs {
		db, err := pg.Connect(u, pool)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("DATABASE_REPLICA_URLS: %s: %w", pg.ReplicaName(u), err)
		}
		name := pg.ReplicaName(u)
		dbs[name] = db
		names = append(names, name)
	}
	router := pg.NewRouter(primary, dbs, names, pg.RouterOptions{MaxLag: cfg.ReplicaMaxLag, Guard: auth.GuardSQL}, log)
	log.Info("read replicas configured", slog.Any("replicas", names), slog.Duration("max_lag", cfg.ReplicaMaxLag))
	return router, closeAll, nil
}

func migrateCmd(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate [up|down|version]",
		Short: "Apply (up, the default) or revert (down) the database migrations, or print the version",
		Long: "Migrations are embedded in the binary (db/migrations). up is safe to run from several instances at once.\n" +
			"down reverts every migration and destroys all data.",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"up", "down", "version"},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "up"
			if len(args) == 1 {
				dir = args[0]
			}
			if dir != "up" && dir != "down" && dir != "version" {
				return fmt.Errorf("unknown direction %q: use up, down or version", dir)
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			switch dir {
			case "up":
				err = pg.MigrateUp(conn)
			case "down":
				err = pg.MigrateDown(conn)
			}
			if err != nil {
				return err
			}
			v, dirty, err := pg.MigrationVersion(conn)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "schema version %d (dirty=%v)\n", v, dirty)
			return nil
		},
	}
}

func seedCmd(getenv func(string) string) *cobra.Command {
	var file string
	var ifEmpty bool
	c := &cobra.Command{
		Use:   "seed",
		Short: "Import a JSON fixture (default: the embedded demo dataset) in one transaction",
		Long: "seed loads a fixture document (format: db/FIXTURES.md) through the same code paths as the API,\n" +
			"so the same events produce the same notifications and counts. An invalid fixture is rejected\n" +
			"whole, naming the bad entry; nothing is half-imported.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc := db.Demo
			if file != "" {
				b, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				doc = b
			}
			fx, err := seed.Parse(doc)
			if err != nil {
				return err
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			if ifEmpty {
				var n int
				if err := conn.GetContext(cmd.Context(), &n, `SELECT count(*) FROM members`); err != nil {
					return err
				}
				if n > 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "database already has members; not seeding")
					return nil
				}
			}
			sum, err := seed.Import(cmd.Context(), conn, fx)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), sum)
			for _, w := range sum.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			// Generated token values are shown here only: one "handle scope value" line each.
			for _, t := range sum.GeneratedTokens {
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s %s\n", t.Handle, t.Scope, t.Value)
			}
			return nil
		},
	}
	c.Flags().StringVar(&file, "file", "", "fixture file (JSON); default: the embedded demo dataset")
	c.Flags().BoolVar(&ifEmpty, "if-empty", false, "do nothing when the database already has members")
	return c
}

func checkCmd(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check that every denormalised counter equals its rows (exit 1 on any mismatch)",
		Long: "check compares every stored counter (followers, following, blocks, reactions per type, comments,\n" +
			"replies, poll votes, unread messages) with a count of its rows, and member_hides with blocks and mutes,\n" +
			"and lists each mismatch. Read-only.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			ms, err := seed.CheckCounters(cmd.Context(), conn)
			if err != nil {
				return err
			}
			for _, m := range ms {
				fmt.Fprintln(cmd.OutOrStdout(), m)
			}
			if len(ms) > 0 {
				return fmt.Errorf("%d counter(s) differ from their rows", len(ms))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "all counters match their rows")
			return nil
		},
	}
}

func generateCmd(getenv func(string) string) *cobra.Command {
	var scale string
	var seedValue int64
	c := &cobra.Command{
		Use:   "generate [--scale default|small|N] [--seed N]",
		Short: "Fill an empty, migrated database with a synthetic network for benchmarks",
		Long: "generate loads a synthetic social network with COPY in one transaction: by default 10,000 members\n" +
			"with a skewed follow graph, 1,000,000 posts over a year, ~5,000,000 reactions, ~1,000,000 threaded\n" +
			"comments, 50,000 listings, 10,000 jobs, 20,000 conversations with 500,000 messages and the\n" +
			"notifications of the last 60 days; small is 1/50 of that; N is a member count (the rest in\n" +
			"proportion). Counters match their rows (see check). Every member gets a read and a write token\n" +
			"derived from the seed (synth.Token), so never run it on a database with real members.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := synth.ParseScale(scale)
			if err != nil {
				return err
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			logf := func(format string, args ...any) { fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", args...) }
			sum, err := synth.Generate(cmd.Context(), conn.DB, synth.Config{Scale: sc, Seed: seedValue, Logf: logf})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	c.Flags().StringVar(&scale, "scale", "default", "default, small (1/50) or a member count")
	c.Flags().Int64Var(&seedValue, "seed", 1, "random seed; the same seed gives the same network and tokens")
	return c
}

func memberCmd(getenv func(string) string) *cobra.Command {
	c := &cobra.Command{Use: "member", Short: "Administer members", Args: cobra.NoArgs}
	var n members.New
	var bio string
	create := &cobra.Command{
		Use:   "create --handle H --name N [--verified] [--bio B]",
		Short: "Create a member",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("bio") {
				n.Bio = &bio
			}
			if err := n.Validate(); err != nil {
				return err
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			m, err := members.NewStore(conn).Create(cmd.Context(), n)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created member %d @%s\n", m.ID, m.Handle)
			return nil
		},
	}
	create.Flags().StringVar(&n.Handle, "handle", "", "unique handle: 1-30 letters, digits or underscores (required)")
	create.Flags().StringVar(&n.Name, "name", "", "display name, 1-100 characters (required)")
	create.Flags().BoolVar(&n.Verified, "verified", false, "mark the member as verified")
	create.Flags().StringVar(&bio, "bio", "", "profile text, at most 500 characters")
	create.Flags().StringVar(&n.DefaultVisibility, "default-visibility", "public", "visibility of new posts: public, followers or private")
	_ = create.MarkFlagRequired("handle")
	_ = create.MarkFlagRequired("name")
	c.AddCommand(create, suspendCmd(getenv, true), suspendCmd(getenv, false))
	return c
}

// suspendCmd is `member suspend` (on) or `member unsuspend`: one
// transaction each (members.Store.Suspend, Unsuspend).
func suspendCmd(getenv func(string) string, on bool) *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:   "suspend HANDLE --reason TEXT",
		Short: "Suspend a member: their tokens answer 401 account_suspended and what they wrote is hidden from everyone",
		Args:  cobra.ExactArgs(1),
	}
	if !on {
		c.Use, c.Short = "unsuspend HANDLE --reason TEXT", "Lift a member's suspension: their tokens work again and what they wrote is seen again"
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		conn, _, err := openDB(cmd.Context(), getenv)
		if err != nil {
			return err
		}
		defer conn.Close()
		s := members.NewStore(conn)
		if on {
			sus, err := s.Suspend(cmd.Context(), args[0], reason)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "suspended member %d @%s at %s\n", sus.MemberID, sus.Handle, sus.SuspendedAt.UTC().Format(time.RFC3339))
			return nil
		}
		sus, err := s.Unsuspend(cmd.Context(), args[0], reason)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "unsuspended member %d @%s (suspended since %s)\n", sus.MemberID, sus.Handle, sus.SuspendedAt.UTC().Format(time.RFC3339))
		return nil
	}
	c.Flags().StringVar(&reason, "reason", "", "why, for the record: 1-1000 characters (required)")
	_ = c.MarkFlagRequired("reason")
	return c
}

func tokenCmd(getenv func(string) string) *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Administer API tokens", Args: cobra.NoArgs}

	var nt auth.NewToken
	var scope string
	var expires time.Duration
	create := &cobra.Command{
		Use:   "create --handle H --scope read|write [--name N] [--expires DURATION]",
		Short: "Create a token and print its value (shown once) alone on stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nt.Scope = auth.Scope(scope)
			if nt.Scope != auth.ScopeRead && nt.Scope != auth.ScopeWrite {
				return fmt.Errorf("--scope must be read or write, got %q", scope)
			}
			if cmd.Flags().Changed("expires") {
				if expires <= 0 {
					return fmt.Errorf("--expires must be a positive duration such as 720h, got %s", expires)
				}
				t := time.Now().Add(expires)
				nt.ExpiresAt = &t
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			t, secret, err := auth.NewStore(conn, nil).Create(cmd.Context(), nt)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			fmt.Fprintf(cmd.ErrOrStderr(), "created token %d (%s) for @%s; store the value now, it is not shown again\n", t.ID, t.Scope, t.Handle)
			return nil
		},
	}
	create.Flags().StringVar(&nt.Handle, "handle", "", "member handle (required)")
	create.Flags().StringVar(&scope, "scope", "", "read or write (required)")
	create.Flags().StringVar(&nt.Name, "name", "", "a label for the token")
	create.Flags().DurationVar(&expires, "expires", 0, "lifetime, e.g. 720h (default: never expires)")
	_ = create.MarkFlagRequired("handle")
	_ = create.MarkFlagRequired("scope")

	var handle string
	list := &cobra.Command{
		Use:   "list --handle H",
		Short: "List a member's tokens (never their values)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			ts, err := auth.NewStore(conn, nil).List(cmd.Context(), handle)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%-6s %-6s %-14s %-25s %-25s %-25s %-25s %s\n", "ID", "SCOPE", "PREFIX", "CREATED", "LAST USED", "EXPIRES", "REVOKED", "NAME")
			for _, t := range ts {
				fmt.Fprintf(w, "%-6d %-6s %-14s %-25s %-25s %-25s %-25s %s\n", t.ID, t.Scope, t.DisplayPrefix+"…",
					t.CreatedAt.UTC().Format(time.RFC3339), timeOrDash(t.LastUsedAt), timeOrDash(t.ExpiresAt), timeOrDash(t.RevokedAt), t.Name)
			}
			return nil
		},
	}
	list.Flags().StringVar(&handle, "handle", "", "member handle (required)")
	_ = list.MarkFlagRequired("handle")

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token; it fails authentication from the next request on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return fmt.Errorf("ID must be a positive integer, got %q", args[0])
			}
			conn, _, err := openDB(cmd.Context(), getenv)
			if err != nil {
				return err
			}
			defer conn.Close()
			t, err := auth.NewStore(conn, nil).Revoke(cmd.Context(), id)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked token %d of @%s\n", t.ID, t.Handle)
			return nil
		},
	}
	c.AddCommand(create, list, revoke)
	return c
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
