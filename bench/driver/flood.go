package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The search flood + bystander scenario: floodMembers members each keep
// floodPerMember searches in flight, every one with a text of its own (no
// cache serves it), while another member, the bystander, reads /me at
// bystanderRate a second. A flood search may answer 200 or 429 (the
// searches a member, or the server, may run at once are bounded); the
// bystander must answer 200 every time, its latency untouched by the flood.
// The flood stays within the rate limits, as the clients of the issue did:
// the server under benchmark has its budgets raised, so each member's
// workers share a budget of their own, floodBudget requests a minute
// refilled evenly (the default read policy), and each worker also waits
// Retry-After after a 429 (whose only cause here is the search bounds).
const (
	floodName      = "search_flood"
	floodMembers   = 4
	floodPerMember = 120
	floodBudget    = 120
	bystanderRate  = 20
)

// floodText is the n-th text of the flood: common words, which match most
// posts, and a negated word of its own, so no two texts are alike.
func floodText(n int64) string {
	return `"the the the the the the" -zq` + strconv.FormatInt(n, 36)
}

// searchFlood runs the flood and the bystander for the closed and open runs'
// time together: Closed is the flood (200 and 429 expected), Open the
// bystander's /me (200 expected).
func (d *driver) searchFlood(ctx context.Context, s scenario) (scenarioReport, error) {
	sr := scenarioReport{Name: s.Name, Title: s.Title}
	if len(d.f.active) < floodMembers+1 {
		sr.Skipped = fmt.Sprintf("%d active members: the flood needs %d", len(d.f.active), floodMembers+1)
		return sr, nil
	}
	dur := d.opt.closed + d.opt.open
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: floodMembers*floodPerMember + 64, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	send := func(ctx context.Context, path, token, op string) (result, time.Duration) {
		t0 := time.Now()
		r := result{start: t0.UnixNano(), op: op}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.opt.api+path, nil)
		if err != nil {
			r.err = err.Error()
			return r, 0
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		r.latency = time.Since(t0).Nanoseconds()
		if err != nil {
			r.err = err.Error()
			return r, 0
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		r.code = resp.StatusCode
		if r.code < 200 || r.code >= 300 {
			r.body = string(body[:min(len(body), 300)])
		}
		wait := time.Duration(0)
		if r.code == http.StatusTooManyRequests {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			wait = time.Duration(max(secs, 1)) * time.Second
		}
		return r, wait
	}
	runCtx, stop := context.WithTimeout(ctx, dur)
	defer stop()
	var (
		mu        sync.Mutex
		flood     []result
		bystander []result
		wg        sync.WaitGroup
		texts     atomic.Int64
	)
	d.logf("%s: %d members × %d searches in flight, bystander /me at %d req/s, %s", s.Name, floodMembers, floodPerMember, bystanderRate, dur)
	for m := range floodMembers {
		token := d.f.read[d.f.active[m]]
		budget := make(chan struct{}, floodBudget)
		for range floodBudget {
			budget <- struct{}{}
		}
		wg.Add(1)
		go func() { // the refill: floodBudget a minute
			defer wg.Done()
			t := time.NewTicker(time.Minute / floodBudget)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
					select {
					case budget <- struct{}{}:
					default:
					}
				}
			}
		}()
		for range floodPerMember {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for runCtx.Err() == nil {
					select {
					case <-runCtx.Done():
						return
					case <-budget:
					}
					r, wait := send(runCtx, "/api/v1/search?q="+url.QueryEscape(floodText(texts.Add(1))), token, "search")
					if runCtx.Err() != nil {
						return // cut by the end of the run: not an answer
					}
					mu.Lock()
					flood = append(flood, r)
					mu.Unlock()
					select {
					case <-runCtx.Done():
					case <-time.After(wait):
					}
				}
			}()
		}
	}
	by := d.f.read[d.f.active[floodMembers]]
	tick := time.NewTicker(time.Second / bystanderRate)
	var bwg sync.WaitGroup
	for loop := true; loop; {
		select {
		case <-runCtx.Done():
			loop = false
		case <-tick.C:
			bwg.Add(1)
			go func() {
				defer bwg.Done()
				r, _ := send(ctx, "/api/v1/me", by, "me") // not cut: every bystander request is answered
				mu.Lock()
				bystander = append(bystander, r)
				mu.Unlock()
			}()
		}
	}
	tick.Stop()
	wg.Wait()
	bwg.Wait()
	if ctx.Err() != nil {
		return sr, ctx.Err()
	}
	sortByStart(flood)
	sortByStart(bystander)
	sr.Closed = summarize(flood, func(_ string, code int) bool { return code == 200 || code == 429 },
		load{closedWorkers: floodMembers * floodPerMember, duration: dur})
	open := summarize(bystander, func(_ string, code int) bool { return code == 200 }, load{rate: bystanderRate, duration: dur})
	sr.Open = &open
	d.logf("%s: flood %d searches (%v), bystander /me p50 %.1f ms p99 %.1f ms, %d errors", s.Name,
		sr.Closed.Requests, sr.Closed.Codes, open.P50, open.P99, open.Errors)
	// The flood's first second holds its opening burst (every worker's
	// first search at once, queued in the server's request gate with the
	// bystander's /me); the rest is the flood as it goes on.
	if len(bystander) > 0 {
		cut := bystander[0].start + int64(time.Second)
		i := sort.Search(len(bystander), func(i int) bool { return bystander[i].start >= cut })
		if later := bystander[i:]; len(later) > 0 {
			p := summarize(later, func(_ string, code int) bool { return code == 200 }, load{rate: bystanderRate, duration: dur - time.Second})
			d.logf("%s: bystander /me after the first second: p50 %.1f ms p99 %.1f ms, %d errors of %d", s.Name, p.P50, p.P99, p.Errors, p.Requests)
		}
	}
	return sr, nil
}

func sortByStart(rs []result) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
}
