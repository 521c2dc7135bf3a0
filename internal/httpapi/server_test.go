package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/httpapi"
)

func TestServeDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "done")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpapi.Serve(ctx, slog.New(slog.DiscardHandler), addr, h, 5*time.Second) }()

	var resp *http.Response
	var reqErr error
	got := make(chan struct{})
	go func() {
		for range 50 { // wait for the listener
			if resp, reqErr = http.Get("http://" + addr + "/"); reqErr == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		close(got)
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("request never reached the handler")
	}
	cancel() // SIGTERM
	<-got
	if reqErr != nil {
		t.Fatalf("in-flight request failed during shutdown: %v", reqErr)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "done" {
		t.Errorf("body = %q, want done", body)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("server still accepts connections after shutdown")
	}
}
