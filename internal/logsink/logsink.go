// Package logsink buffers a server's log output. The server logs a line per
// request, and a write(2) per line is a visible share of a small request's
// CPU (docs/performance-journal.md, "Batched access log"), so lines are
// written in batches, at most Every apart, and at once for warnings and
// errors.
package logsink

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Every is how long a line may wait in the buffer.
const Every = 100 * time.Millisecond

// size is the buffer: a full buffer is written at once.
const size = 64 << 10

// Writer buffers writes to an underlying writer and flushes them every
// interval, when the buffer fills, on Flush and on Close. It is safe for
// concurrent use; each Write is kept whole.
type Writer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// New returns a Writer over w that flushes every interval until Close.
func New(w io.Writer, interval time.Duration) *Writer {
	b := &Writer{w: bufio.NewWriterSize(w, size), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run(interval)
	return b
}

func (b *Writer) run(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = b.Flush()
		case <-b.stop:
			return
		}
	}
}

// Write buffers p.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// Flush writes what is buffered.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the periodic flush and flushes. Writes after Close are
// buffered until the next Flush.
func (b *Writer) Close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	return b.Flush()
}

// Handler wraps a handler that writes to w so that records at level Warn and
// above are flushed as soon as they are written.
func Handler(h slog.Handler, w *Writer) slog.Handler { return &flushing{h, w} }

type flushing struct {
	slog.Handler
	w *Writer
}

func (f *flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := f.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f *flushing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &flushing{f.Handler.WithAttrs(attrs), f.w}
}

func (f *flushing) WithGroup(name string) slog.Handler {
	return &flushing{f.Handler.WithGroup(name), f.w}
}
