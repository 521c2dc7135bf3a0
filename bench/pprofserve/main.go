// Command pprofserve serves the API as `socialapi serve` wires it
// (httpapi.New, the default pool, limits from RATE_LIMIT_READ and
// RATE_LIMIT_WRITE) plus net/http/pprof on a second loopback listener.
// `make bench` uses it only to profile one scenario (the feed's by
// default); the numbers of the report always come from the real binary.
package main

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // the profiling endpoints, on the debug listener only
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/httpapi"
	"github.com/socialnet/socialapi/internal/logsink"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/search"
	"github.com/socialnet/socialapi/internal/stream"
	"github.com/socialnet/socialapi/internal/views"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18082", "API listen address")
	debug := flag.String("debug", "127.0.0.1:18083", "pprof listen address")
	spec := flag.String("spec", "openapi.yaml", "the contract, served at /api/v1/openapi.yaml")
	flag.Parse()
	// Logged as the server logs (main.go): through a buffered sink.
	sink := logsink.New(os.Stderr, logsink.Every)
	log := slog.New(logsink.Handler(slog.NewJSONHandler(sink, nil), sink))
	err := run(*addr, *debug, *spec, log)
	if err != nil {
		log.Error("pprofserve", slog.String("error", err.Error()))
	}
	_ = sink.Close()
	if err != nil {
		os.Exit(1)
	}
}

func run(addr, debug, specPath string, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	specYAML, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	conn, err := pg.Open(ctx, os.Getenv("DATABASE_URL"), pg.DefaultPool)
	if err != nil {
		return err
	}
	defer conn.Close()
	counter := views.New(conn, log, views.DefaultFlushEvery)
	defer func() { _ = counter.Close(context.Background()) }()
	cfg := httpapi.DefaultConfig()
	cfg.PublicURL, cfg.BodyLimit, cfg.RequestTimeout, cfg.Views = "http://"+addr, 64<<10, 10*time.Second, counter
	cfg.MaxActive = min(pg.DefaultPool.MaxOpen, 4*runtime.GOMAXPROCS(0)) // as serve's default (MAX_ACTIVE_REQUESTS)
	cfg.SearchBounds.Active = search.DefaultActive(cfg.MaxActive, pg.DefaultPool.MaxOpen)
	cfg.RateLimits.Read, cfg.RateLimits.Write = envInt("RATE_LIMIT_READ", cfg.RateLimits.Read), envInt("RATE_LIMIT_WRITE", cfg.RateLimits.Write)
	// Event streams are poked as serve's are (a listener of its own), so
	// that a profile of the streams scenario sees them read and render.
	hub, err := stream.New(stream.Config{ReadQuota: cfg.RateLimits.Read}, conn, log, auth.NewStore(conn, nil), cfg.PublicURL, nil)
	if err != nil {
		return err
	}
	go hub.Run(ctx, os.Getenv("DATABASE_URL"))
	cfg.Stream = hub
	h, err := httpapi.New(cfg, conn, log, specYAML)
	if err != nil {
		return err
	}
	go func() {
		srv := &http.Server{Addr: debug, Handler: http.DefaultServeMux, ReadHeaderTimeout: 5 * time.Second}
		log.Info("pprof listening", slog.String("addr", debug), slog.Any("error", srv.ListenAndServe()))
	}()
	return httpapi.Serve(ctx, log, addr, h, time.Second)
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
