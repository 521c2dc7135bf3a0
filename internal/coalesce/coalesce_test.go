package coalesce

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// blocker is a Group of one slot whose lone reads wait for unblock, and
// whose batches are recorded.
type blocker struct {
	g       *Group[int, int]
	started chan int      // a lone read began
	unblock chan struct{} // closed: lone reads end
	mu      sync.Mutex
	batches [][]int
	ctxs    []context.Context
	fail    error
	short   bool // answer one value too few
}

func newBlocker(size int) *blocker {
	b := &blocker{started: make(chan int, 16), unblock: make(chan struct{})}
	b.g = New(NewPool(1), size, func(_ context.Context, k int) (int, error) {
		b.started <- k
		<-b.unblock
		return -k, nil
	}, func(ctx context.Context, ks []int) ([]int, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.batches = append(b.batches, slices.Clone(ks))
		b.ctxs = append(b.ctxs, ctx)
		if b.fail != nil {
			return nil, b.fail
		}
		out := make([]int, len(ks))
		for i, k := range ks {
			out[i] = 10 * k
		}
		if b.short {
			out = out[1:]
		}
		return out, nil
	})
	return b
}

// waiting reports how many reads wait in g's batches.
func (b *blocker) waiting() int {
	b.g.pool.mu.Lock()
	defer b.g.pool.mu.Unlock()
	n := 0
	for _, w := range b.g.pool.waiting {
		n += len(w.(*batch[int, int]).keys)
	}
	return n
}

// queue starts reads of keys that find the slot busy and waits until all
// of them are queued; their answers arrive on the returned channel.
func (b *blocker) queue(t *testing.T, ctx context.Context, keys ...int) chan [3]int {
	t.Helper()
	out := make(chan [3]int, len(keys))
	for _, k := range keys {
		before := b.waiting()
		go func() {
			v, err := b.g.Do(ctx, k)
			e := 0
			if err != nil {
				e = 1
			}
			out <- [3]int{k, v, e}
		}()
		for b.waiting() == before { // one at a time: the queue's order is known
			time.Sleep(100 * time.Microsecond)
		}
	}
	return out
}

func collect(t *testing.T, ch chan [3]int, n int) map[int][2]int {
	t.Helper()
	got := map[int][2]int{}
	for range n {
		select {
		case r := <-ch:
			got[r[0]] = [2]int{r[1], r[2]}
		case <-time.After(5 * time.Second):
			t.Fatal("a read was never answered")
		}
	}
	return got
}

// TestLoneReadRunsAlone: with a free slot a read runs at once, alone.
func TestLoneReadRunsAlone(t *testing.T) {
	b := newBlocker(8)
	close(b.unblock)
	for k := 1; k <= 3; k++ {
		b.started = make(chan int, 1)
		if v, err := b.g.Do(context.Background(), k); err != nil || v != -k {
			t.Fatalf("Do(%d) = %d, %v; want %d", k, v, err, -k)
		}
	}
	if len(b.batches) != 0 {
		t.Errorf("sequential reads were batched: %v", b.batches)
	}
	if b.g.pool.busy != 0 {
		t.Errorf("%d slots still busy", b.g.pool.busy)
	}
}

// TestQueuedReadsShareStatements: reads that find every slot busy wait and
// are answered together, in batches of at most size, in arrival order, each
// with its own answer.
func TestQueuedReadsShareStatements(t *testing.T) {
	b := newBlocker(4)
	lone := make(chan int, 1)
	go func() { v, _ := b.g.Do(context.Background(), 100); lone <- v }()
	<-b.started
	keys := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	ch := b.queue(t, context.Background(), keys...)
	if len(b.batches) != 0 {
		t.Fatal("a batch ran while the slot was busy")
	}
	close(b.unblock)
	if v := <-lone; v != -100 {
		t.Errorf("the lone read got %d", v)
	}
	got := collect(t, ch, len(keys))
	for _, k := range keys {
		if got[k] != [2]int{10 * k, 0} {
			t.Errorf("read %d got %v, want %d", k, got[k], 10*k)
		}
	}
	want := [][]int{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10}}
	if !slices.EqualFunc(b.batches, want, slices.Equal) {
		t.Errorf("batches %v, want %v", b.batches, want)
	}
	waitIdle(t, b.g)
}

func waitIdle(t *testing.T, g *Group[int, int]) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(100 * time.Microsecond) {
		g.pool.mu.Lock()
		busy := g.pool.busy
		g.pool.mu.Unlock()
		if busy == 0 {
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%d slots still busy", busy)
		}
	}
}

// TestBatchErrorsAndDeadlines: a batch's error reaches each of its reads, a
// mis-sized answer is an error, a batch's context ends at its readers'
// latest deadline, and a reader that gives up returns at once while its
// batch still answers the others.
func TestBatchErrorsAndDeadlines(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		expectBatchFails(t, func(b *blocker) { b.fail = errors.New("database down") })
	})
	t.Run("short answer", func(t *testing.T) {
		expectBatchFails(t, func(b *blocker) { b.short = true })
	})
	t.Run("deadlines", func(t *testing.T) {
		b := newBlocker(8)
		go func() { _, _ = b.g.Do(context.Background(), 100) }()
		<-b.started
		late := time.Now().Add(time.Hour)
		early, cancelEarly := context.WithDeadline(context.Background(), time.Now().Add(30*time.Minute))
		defer cancelEarly()
		lateCtx, cancelLate := context.WithDeadline(context.Background(), late)
		defer cancelLate()
		gone, leave := context.WithDeadline(context.Background(), time.Now().Add(10*time.Minute))
		ch := b.queue(t, early, 1)
		ch2 := b.queue(t, lateCtx, 2)
		ch3 := b.queue(t, gone, 3)
		leave()
		if r := collect(t, ch3, 1)[3]; r[1] != 1 {
			t.Errorf("a reader that gave up got %v, want its context's error", r)
		}
		close(b.unblock)
		if r := collect(t, ch, 1)[1]; r != [2]int{10, 0} {
			t.Errorf("read 1 got %v", r)
		}
		if r := collect(t, ch2, 1)[2]; r != [2]int{20, 0} {
			t.Errorf("read 2 got %v", r)
		}
		waitIdle(t, b.g)
		if len(b.batches) != 1 || !slices.Equal(b.batches[0], []int{1, 2, 3}) {
			t.Fatalf("batches %v, want [[1 2 3]]", b.batches)
		}
		if d, ok := b.ctxs[0].Deadline(); !ok || !d.Equal(late) {
			t.Errorf("the batch's deadline is %v (%v), want the latest reader's %v", d, ok, late)
		}
		// A reader without a deadline leaves its batch without one.
		b2 := newBlocker(8)
		go func() { _, _ = b2.g.Do(context.Background(), 100) }()
		<-b2.started
		chA := b2.queue(t, early, 1)
		chB := b2.queue(t, context.Background(), 2)
		close(b2.unblock)
		collect(t, chA, 1)
		collect(t, chB, 1)
		if _, ok := b2.ctxs[0].Deadline(); ok {
			t.Error("a batch with a reader without deadline has one")
		}
	})
}

// TestPoolServesKindsInArrivalOrder: two kinds of reads share a pool of one
// slot; a freed slot goes to the batch whose first read came first, and a
// kind's later reads join its waiting batch.
func TestPoolServesKindsInArrivalOrder(t *testing.T) {
	a := newBlocker(8)
	var mu sync.Mutex
	var order []string
	record := func(kind string, ks []int) ([]int, error) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, fmt.Sprint(kind, ks))
		return make([]int, len(ks)), nil
	}
	a.g.many = func(_ context.Context, ks []int) ([]int, error) { return record("a", ks) }
	b := &blocker{g: New(a.g.pool, 8, func(context.Context, int) (int, error) { return 0, nil },
		func(_ context.Context, ks []int) ([]int, error) { return record("b", ks) })}
	go func() { _, _ = a.g.Do(context.Background(), 100) }()
	<-a.started
	ch := a.queue(t, context.Background(), 1)
	ch2 := b.queue(t, context.Background(), 2)
	ch3 := a.queue(t, context.Background(), 3)
	close(a.unblock)
	collect(t, ch, 1)
	collect(t, ch2, 1)
	collect(t, ch3, 1)
	waitIdle(t, a.g)
	if want := []string{"a[1 3]", "b[2]"}; !slices.Equal(order, want) {
		t.Errorf("ran %v, want %v", order, want)
	}
}

// TestBatchPanicFailsItsReads: a panic while answering a batch fails its
// reads with an error and frees the slot.
func TestBatchPanicFailsItsReads(t *testing.T) {
	expectBatchFails(t, func(b *blocker) {
		b.g.many = func(context.Context, []int) ([]int, error) { panic("bug") }
	})
}

// expectBatchFails queues two reads behind a lone one, on a blocker spoiled
// by spoil, and checks that both fail and that the slot is freed.
func expectBatchFails(t *testing.T, spoil func(*blocker)) {
	t.Helper()
	b := newBlocker(8)
	spoil(b)
	go func() { _, _ = b.g.Do(context.Background(), 100) }()
	<-b.started
	ch := b.queue(t, context.Background(), 1, 2)
	close(b.unblock)
	for k, r := range collect(t, ch, 2) {
		if r[1] != 1 {
			t.Errorf("read %d: no error", k)
		}
	}
	waitIdle(t, b.g)
}
