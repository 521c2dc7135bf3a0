package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
)

// The gate admits as many requests as it has places, and the waiting ones in
// the order they came; one whose context ends while it waits is refused as
// unavailable without running.
func TestGateAdmitsInArrivalOrder(t *testing.T) {
	t.Parallel()
	e := echo.New()
	g := newGate(1)
	var (
		mu    sync.Mutex
		order []int
	)
	release := make(chan struct{})
	handler := g.middleware()(func(c echo.Context) error {
		n := c.Get("n").(int)
		mu.Lock()
		order = append(order, n)
		mu.Unlock()
		if n == 0 {
			<-release
		}
		return nil
	})
	run := func(n int, ctx context.Context) <-chan error {
		done := make(chan error, 1)
		go func() {
			c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx), httptest.NewRecorder())
			c.Set("n", n)
			done <- handler(c)
		}()
		return done
	}
	// settle lets a started request reach the gate's queue (a blocked send
	// is not observable from here).
	settle := func() { time.Sleep(20 * time.Millisecond) }

	first := run(0, context.Background())
	for g.inUse() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := run(-1, ctx)
	settle()
	var waiting []<-chan error
	for n := 1; n <= 4; n++ {
		waiting = append(waiting, run(n, context.Background()))
		settle()
	}
	cancel()
	if err := <-gone; !apperr.Is(err, apperr.Unavailable) {
		t.Errorf("request whose context ended while waiting: %v, want unavailable", err)
	}
	close(release)
	for _, done := range append([]<-chan error{first}, waiting...) {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []int{0, 1, 2, 3, 4}
	if len(order) != len(want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("ran %v, want %v (arrival order)", order, want)
		}
	}
	if n := g.inUse(); n != 0 {
		t.Errorf("%d places still taken after every request ended", n)
	}
}

// No places: no gate.
func TestGateNone(t *testing.T) {
	t.Parallel()
	if g := newGate(0); g != nil {
		t.Fatalf("newGate(0) = %v, want nil", g)
	}
}

// A route the gate is told bounds its own database use passes while every
// place is taken; the same path with another method, and other paths, wait.
func TestGateLetsOwnRoutesPass(t *testing.T) {
	t.Parallel()
	e := echo.New()
	g := newGate(1)
	g.acquire(0, nil) // every place taken
	defer g.release()
	handler := g.middleware("GET /api/v1/posts/:id")(func(echo.Context) error { return nil })
	for _, c := range []struct {
		method, path string
		passes       bool
	}{
		{http.MethodGet, "/api/v1/posts/:id", true},
		{http.MethodDelete, "/api/v1/posts/:id", false},
		{http.MethodGet, "/api/v1/posts/:id/comments", false},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			ec := e.NewContext(httptest.NewRequest(c.method, "/", nil).WithContext(ctx), httptest.NewRecorder())
			ec.SetPath(c.path)
			err := handler(ec)
			cancel()
			if passed := err == nil; passed != c.passes {
				t.Errorf("%s %s with the gate full: %v, want passing %v", c.method, c.path, err, c.passes)
			}
		})
	}
}

// One client's many waiting requests do not keep another's out: a freed
// place goes to the next client in turn, each client's own requests in
// arrival order.
func TestGateIsFairBetweenClients(t *testing.T) {
	t.Parallel()
	g := newGate(1)
	const flood, other = 1, 2
	if !g.acquire(flood, nil) {
		t.Fatal("first place refused")
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	wait := func(name string, client uint64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !g.acquire(client, nil) {
				t.Errorf("%s refused", name)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			g.release()
		}()
		// Let it join its line before the next one comes.
		for deadline := time.Now().Add(10 * time.Second); ; {
			g.mu.Lock()
			n := 0
			for _, l := range g.lines {
				n += len(l)
			}
			g.mu.Unlock()
			if n > 0 && waitingFor(g, name, client) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never queued", name)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for i := range 5 {
		wait("flood"+string(rune('0'+i)), flood)
	}
	wait("other", other)
	g.release()
	wg.Wait()
	want := []string{"flood0", "other", "flood1", "flood2", "flood3", "flood4"}
	if len(order) != len(want) {
		t.Fatalf("admitted %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("admitted %v, want %v (the other client next, then the flood in order)", order, want)
		}
	}
	if n := g.inUse(); n != 0 {
		t.Errorf("%d places still taken", n)
	}
}

// waitingFor reports whether client's line holds as many requests as names
// of it were queued so far (name's index + 1 for the flood, 1 otherwise).
func waitingFor(g *gate, name string, client uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	want := 1
	if len(name) == len("flood0") && name[:5] == "flood" {
		want = int(name[5]-'0') + 1
	}
	return len(g.lines[client]) == want
}
