package logsink

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// locked is a bytes.Buffer safe for the flusher and the test to share.
type locked struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *locked) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *locked) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestBatchesAndFlushes(t *testing.T) {
	out := &locked{}
	w := New(out, time.Hour) // no periodic flush within the test
	log := slog.New(Handler(slog.NewJSONHandler(w, nil), w))
	for i := range 100 {
		log.Info("request", slog.Int("i", i))
	}
	if got := out.String(); got != "" {
		t.Fatalf("info lines written before a flush: %q", got)
	}
	log.Warn("slow")
	if got := strings.Count(out.String(), "\n"); got != 101 {
		t.Fatalf("after a warning: %d lines, want 101", got)
	}
	out.mu.Lock()
	writes := out.writes
	out.mu.Unlock()
	if writes != 1 {
		t.Errorf("101 lines in %d writes, want 1", writes)
	}
	log.With(slog.String("k", "v")).Info("last")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), `"msg":"last","k":"v"}`+"\n") {
		t.Errorf("Close did not flush the last line: %q", out.String())
	}
}

func TestPeriodicFlush(t *testing.T) {
	out := &locked{}
	w := New(out, 10*time.Millisecond)
	defer w.Close()
	fmt.Fprintln(w, "line")
	deadline := time.Now().Add(5 * time.Second)
	for out.String() == "" {
		if time.Now().After(deadline) {
			t.Fatal("a buffered line was never flushed")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Concurrent records stay whole, one per line.
func TestConcurrentLinesWhole(t *testing.T) {
	out := &locked{}
	w := New(out, time.Millisecond)
	log := slog.New(slog.NewJSONHandler(w, nil))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				log.Info("request", slog.Int("g", g), slog.Int("i", i), slog.String("pad", strings.Repeat("x", 200)))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4000 {
		t.Fatalf("%d lines, want 4000", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
			t.Fatalf("broken line: %q", l)
		}
	}
}
