package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// The streams scenario (issue 38): streamsWanted event streams held open
// (GET /api/v1/stream, one per member, so within STREAM_PER_MEMBER) while
// the realistic mix runs as the mix scenario does (warm-up, closed, open).
// Around it, the server's RSS and goroutines (go_goroutines from its
// metrics listener) before the streams open, at their peak while the mix
// runs, and after they closed; the events the server sent and the streams
// it dropped (its stream metrics) over the scenario; and the latency from
// a write's 2xx to the event it causes: a prober comments on a post of a
// sampled stream's member, one sampled stream at a time, and times the
// comment's notification event from the moment the 201 was read.
const (
	streamsName    = "mix_streams"
	streamsWanted  = 1000
	streamsSampled = 50
	// probeEvery spaces the probes: 5 a second give about 225 latencies
	// over the mix's 45 s, enough for a p99, while their load (writes the
	// mix itself does not count) stays near 1 % of the mix's.
	probeEvery = 200 * time.Millisecond
	probeWait  = 10 * time.Second // a notification not seen within it counts as missing
)

// peakSample is how often the server's RSS is read (from /proc) while the
// streams are open: often enough to see the peak of a 10 s run. Its
// goroutines are read every scrapeEvery samples, from /metrics: a scrape
// renders every metric the server has, and at 5 a second the scrapes were
// server CPU the mix (which scrapes nothing) does not pay.
const (
	peakSample  = 200 * time.Millisecond
	scrapeEvery = 5
)

// streamsReport is what the streams scenario measured beside the mix.
type streamsReport struct {
	Opened int `json:"opened"`
	Failed int `json:"failed"`
	// OpenSeconds is how long opening them all took.
	OpenSeconds float64 `json:"open_seconds"`
	// Server RSS (MiB) and goroutines before the streams opened, at their
	// peak while they were open (RSS sampled every peakSample, goroutines
	// every scrapeEvery samples), and once they had closed.
	RSSBefore        float64 `json:"rss_mib_before"`
	RSSDuring        float64 `json:"rss_mib_during"`
	RSSAfter         float64 `json:"rss_mib_after"`
	GoroutinesBefore float64 `json:"goroutines_before"`
	GoroutinesDuring float64 `json:"goroutines_during"`
	GoroutinesAfter  float64 `json:"goroutines_after"`
	// Events the server sent and streams it dropped (its metrics, over the
	// scenario); events the driver's streams received.
	EventsSent float64 `json:"events_sent"`
	Drops      float64 `json:"drops"`
	// Reads of their events by the streams, and the statements that
	// answered them (reads woken together share one).
	Reads          float64 `json:"reads"`
	ReadStatements float64 `json:"read_statements"`
	// Reads that met events not yet settled, and reads of the horizon for
	// the streams waiting for them to settle.
	UnsettledReads float64 `json:"unsettled_reads"`
	HorizonReads   float64 `json:"horizon_reads"`
	EventsReceived int64   `json:"events_received"`
	// Ended counts streams that ended while the mix ran (a drop, an error).
	Ended int64 `json:"ended"`
	// Probes: comments written on the sampled members' posts, and the
	// latency from each 201 to its notification event.
	Sampled int     `json:"sampled"`
	Probes  int     `json:"probes"`
	Missing int     `json:"missing"`
	P50MS   float64 `json:"latency_p50_ms"`
	P99MS   float64 `json:"latency_p99_ms"`
	MaxMS   float64 `json:"latency_max_ms"`
	Note    string  `json:"note,omitempty"`
}

// held is one open stream of the driver's.
type held struct {
	member int
	cancel context.CancelFunc
}

// mixStreams runs the streams scenario.
func (d *driver) mixStreams(ctx context.Context, s scenario, seed uint64) (scenarioReport, error) {
	sr := scenarioReport{Name: s.Name, Title: s.Title, Write: true}
	if d.opt.metrics == "" {
		sr.Skipped = "no -metrics URL: the server's goroutines and stream counters cannot be read"
		return sr, nil
	}
	members := d.streamMembers()
	if len(members) < streamsSampled+1 {
		sr.Skipped = fmt.Sprintf("%d members without a block or suspension: too few for streams", len(members))
		return sr, nil
	}
	st := &streamsReport{}
	sr.Streams = st
	before, err := d.scrape(ctx)
	if err != nil {
		return sr, fmt.Errorf("metrics: %w", err)
	}
	st.RSSBefore, st.GoroutinesBefore = statusKB(d.opt.serverPID, "VmRSS")/1024, before["go_goroutines"]

	// The probes' posts and prober: the sampled members are those with a
	// public post who do not mute the prober (a mute withholds the
	// notification); the prober is a member no block involves and who
	// holds no stream.
	prober := members[len(members)-1]
	members = members[:len(members)-1]
	posts, err := d.probePosts(ctx, members, prober)
	if err != nil {
		return sr, err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()
	var (
		received, ended atomic.Int64
		arrivedMu       sync.Mutex
		arrived         = map[int64]time.Time{} // comment id → when its notification arrived
		streams         []held
		running         = true
		runningMu       sync.Mutex
	)
	sampled := map[int]bool{}
	for m := range posts {
		if len(sampled) == streamsSampled {
			break
		}
		sampled[m] = true
	}
	start := time.Now()
	openOne := func(m int) error {
		sctx, cancel := context.WithCancel(ctx)
		resp, err := d.openStream(sctx, client, d.opt.api, m)
		if err != nil {
			cancel()
			return err
		}
		streams = append(streams, held{member: m, cancel: cancel})
		watch := sampled[m]
		go func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 0, 4096), 1<<20)
			var event string
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "event: "):
					event = line[7:]
				case strings.HasPrefix(line, "data: "):
					received.Add(1)
					if watch && event == "notification" {
						now := time.Now()
						var n struct {
							CommentID *int64 `json:"comment_id"`
						}
						if json.Unmarshal([]byte(line[6:]), &n) == nil && n.CommentID != nil {
							arrivedMu.Lock()
							arrived[*n.CommentID] = now
							arrivedMu.Unlock()
						}
					}
				case line == "":
					event = ""
				}
			}
			runningMu.Lock()
			if running {
				ended.Add(1)
			}
			runningMu.Unlock()
		}()
		return nil
	}
	for _, m := range members {
		if len(streams) == streamsWanted {
			break
		}
		if err := openOne(m); err != nil {
			st.Failed++
			if st.Failed == 1 {
				st.Note = "first failure: " + err.Error()
			}
		}
	}
	st.Opened, st.OpenSeconds = len(streams), time.Since(start).Seconds()
	d.logf("%s: %d streams open (%d failed) in %.1f s", s.Name, st.Opened, st.Failed, st.OpenSeconds)
	if st.Opened == 0 {
		sr.Streams, sr.Skipped = nil, "no stream opened: "+st.Note
		return sr, nil
	}
	closeAll := func() {
		runningMu.Lock()
		running = false
		runningMu.Unlock()
		for _, h := range streams {
			h.cancel()
		}
		// The prober's idle keep-alive connections too: each holds a
		// goroutine of the server's, which "after" would count.
		client.CloseIdleConnections()
	}
	defer closeAll()

	// While the mix runs: the peaks of RSS and goroutines, and the probes.
	runCtx, stopRun := context.WithCancel(ctx)
	var bg sync.WaitGroup
	var peakRSS, peakG float64
	bg.Add(1)
	go func() {
		defer bg.Done()
		t := time.NewTicker(peakSample)
		defer t.Stop()
		for i := 0; ; i++ {
			peakRSS = max(peakRSS, statusKB(d.opt.serverPID, "VmRSS")/1024)
			if i%scrapeEvery == 0 {
				if m, err := d.scrape(runCtx); err == nil {
					peakG = max(peakG, m["go_goroutines"])
				}
			}
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var latMu sync.Mutex
	var lat []int64
	var probes, missing int
	var probed []int
	for m := range sampled {
		probed = append(probed, m)
	}
	sort.Ints(probed)
	st.Sampled = len(probed)
	bg.Add(1)
	go func() {
		defer bg.Done()
		if len(probed) == 0 {
			return // no sampled member has a public post: no latency
		}
		t := time.NewTicker(probeEvery)
		defer t.Stop()
		var inflight sync.WaitGroup
		defer inflight.Wait()
		for i := 0; ; i++ {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
			m := probed[i%len(probed)]
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				id, at, err := d.comment(ctx, client, posts[m], prober)
				latMu.Lock()
				probes++
				latMu.Unlock()
				if err != nil {
					latMu.Lock()
					missing++
					latMu.Unlock()
					return
				}
				deadline := time.Now().Add(probeWait)
				for time.Now().Before(deadline) {
					arrivedMu.Lock()
					got, ok := arrived[id]
					arrivedMu.Unlock()
					if ok {
						latMu.Lock()
						lat = append(lat, max(0, got.Sub(at).Nanoseconds()))
						latMu.Unlock()
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
				latMu.Lock()
				missing++
				latMu.Unlock()
			}()
		}
	}()
	mix := s
	mix.gen = mixTarget
	mixReport, err := d.scenario(ctx, mix, seed)
	stopRun()
	bg.Wait()
	if err != nil {
		return sr, err
	}
	mixReport.Name, mixReport.Title, mixReport.Streams = sr.Name, sr.Title, st
	sr = mixReport
	st.RSSDuring, st.GoroutinesDuring = peakRSS, peakG
	st.EventsReceived, st.Ended = received.Load(), ended.Load()
	st.Probes, st.Missing = probes, missing
	slices.Sort(lat)
	if len(lat) > 0 {
		st.P50MS, st.P99MS, st.MaxMS = percentile(lat, 0.50), percentile(lat, 0.99), ms(lat[len(lat)-1])
	}

	closeAll()
	// After: once the server counts no open stream of ours (poll, at most 30 s).
	deadline := time.Now().Add(30 * time.Second)
	var after map[string]float64
	for {
		after, err = d.scrape(ctx)
		if err != nil {
			return sr, fmt.Errorf("metrics: %w", err)
		}
		if after["socialapi_stream_open"] <= before["socialapi_stream_open"] || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	st.RSSAfter, st.GoroutinesAfter = statusKB(d.opt.serverPID, "VmRSS")/1024, after["go_goroutines"]
	st.EventsSent = after["socialapi_stream_events_sent_total"] - before["socialapi_stream_events_sent_total"]
	st.Drops = after["socialapi_stream_drops_total"] - before["socialapi_stream_drops_total"]
	st.Reads = after["socialapi_stream_reads_total"] - before["socialapi_stream_reads_total"]
	st.ReadStatements = after["socialapi_stream_read_statements_total"] - before["socialapi_stream_read_statements_total"]
	st.UnsettledReads = after["socialapi_stream_unsettled_reads_total"] - before["socialapi_stream_unsettled_reads_total"]
	st.HorizonReads = after["socialapi_stream_horizon_reads_total"] - before["socialapi_stream_horizon_reads_total"]
	d.logf("%s: RSS %.0f/%.0f/%.0f MiB, goroutines %.0f/%.0f/%.0f (before/during/after), %.0f events sent, %.0f drops, %.0f reads in %.0f statements (%.0f unsettled, %.0f horizon reads), %d probes (%d missing), 2xx → event p50 %.1f ms p99 %.1f ms",
		s.Name, st.RSSBefore, st.RSSDuring, st.RSSAfter, st.GoroutinesBefore, st.GoroutinesDuring, st.GoroutinesAfter,
		st.EventsSent, st.Drops, st.Reads, st.ReadStatements, st.UnsettledReads, st.HorizonReads, st.Probes, st.Missing, st.P50MS, st.P99MS)
	return sr, nil
}

// streamMembers are the members the streams are held for: the active
// members no block involves first, then the other members no block
// involves (none suspended: fixtures), shuffled by a fixed seed.
func (d *driver) streamMembers() []int {
	seen := map[int]bool{}
	var out []int
	for _, list := range [][]int{d.f.openActive, d.f.open} {
		for _, m := range list {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	r := rand.New(rand.NewPCG(uint64(d.opt.seed), 38))
	head := min(len(out), streamsWanted+1)
	r.Shuffle(head, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// probePosts picks, for members among the first streamsWanted, one public
// post each, of the members who do not mute prober.
func (d *driver) probePosts(ctx context.Context, members []int, prober int) (map[int]int64, error) {
	ids := make([]int64, 0, min(len(members), streamsWanted))
	for _, m := range members[:min(len(members), streamsWanted)] {
		ids = append(ids, int64(m))
	}
	rows, err := d.db.QueryContext(ctx, `
		SELECT DISTINCT ON (p.author_id) p.author_id, p.id
		  FROM posts p
		 WHERE p.author_id = ANY ($1) AND p.visibility = 'public'
		   AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = p.author_id AND muted_id = $2)
		 ORDER BY p.author_id, p.id DESC`, pq.Array(ids), prober)
	if err != nil {
		return nil, fmt.Errorf("probe posts: %w", err)
	}
	defer rows.Close()
	out := map[int]int64{}
	for rows.Next() {
		var m, p int64
		if err := rows.Scan(&m, &p); err != nil {
			return nil, err
		}
		out[int(m)] = p
	}
	return out, rows.Err()
}

// comment writes one comment of member as on post and returns its id and
// when its 201 was read.
func (d *driver) comment(ctx context.Context, client *http.Client, post int64, member int) (int64, time.Time, error) {
	body := strings.NewReader(`{"body":"stream probe"}`)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.opt.api+"/api/v1/posts/"+strconv.FormatInt(post, 10)+"/comments", body)
	req.Header.Set("Authorization", "Bearer "+d.f.write[member])
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Time{}, err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	at := time.Now()
	if resp.StatusCode != http.StatusCreated || err != nil {
		return 0, at, fmt.Errorf("comment: %d %v", resp.StatusCode, err)
	}
	return out.Data.ID, at, nil
}

// streamMetrics are the series scrape reads.
var streamMetrics = map[string]bool{
	"go_goroutines": true, "socialapi_stream_open": true, "socialapi_stream_events_sent_total": true,
	"socialapi_stream_drops_total": true, "socialapi_stream_reads_total": true,
	"socialapi_stream_read_statements_total": true, "socialapi_stream_unsettled_reads_total": true,
	"socialapi_stream_horizon_reads_total": true,
}

// scrape reads the server's metrics listener: go_goroutines and the
// stream metrics, each summed over its labels.
func (d *driver) scrape(ctx context.Context) (map[string]float64, error) {
	out := map[string]float64{}
	err := d.readMetrics(ctx, func(name, _ string, v float64) {
		if streamMetrics[name] {
			out[name] += v
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// markdown is the report's paragraph on the streams.
func (st *streamsReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Streams: %d opened in %.1f s (%d failed), %d ended while the mix ran. ", st.Opened, st.OpenSeconds, st.Failed, st.Ended)
	fmt.Fprintf(&b, "Server RSS %.0f → %.0f (peak) → %.0f MiB, goroutines %.0f → %.0f (peak) → %.0f, before the streams opened, while they and the mix ran, after they closed. ",
		st.RSSBefore, st.RSSDuring, st.RSSAfter, st.GoroutinesBefore, st.GoroutinesDuring, st.GoroutinesAfter)
	fmt.Fprintf(&b, "Events sent %.0f (received %d), drops %.0f. ", st.EventsSent, st.EventsReceived, st.Drops)
	fmt.Fprintf(&b, "The streams read their events %.0f times with %.0f statements; %.0f reads met events not yet settled, and the horizon was read %.0f times for them. ",
		st.Reads, st.ReadStatements, st.UnsettledReads, st.HorizonReads)
	fmt.Fprintf(&b, "Write's 201 → its notification event, %d probes (comments on %d sampled streams' members' posts, part of the load below) of which %d missing: p50 %.1f ms, p99 %.1f ms, max %.1f ms.",
		st.Probes, st.Sampled, st.Missing, st.P50MS, st.P99MS, st.MaxMS)
	if st.Note != "" {
		fmt.Fprintf(&b, " (%s)", st.Note)
	}
	b.WriteString("\n\n")
	return b.String()
}

// holdStreams opens a stream on base for each of members and reads each
// until stop is called, discarding what arrives: the profile of the
// streams scenario holds them on the profiled server, so that the stream
// code's share shows in it.
func (d *driver) holdStreams(ctx context.Context, base string, members []int) (stop func(), err error) {
	sctx, cancel := context.WithCancel(ctx)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}}
	var wg sync.WaitGroup
	stop = func() {
		cancel()
		wg.Wait()
		client.CloseIdleConnections()
	}
	for _, m := range members {
		resp, err := d.openStream(sctx, client, base, m)
		if err != nil {
			stop()
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
		}()
	}
	return stop, nil
}

// openStream opens member m's stream on base with m's read token: the
// response, its body to read until ctx ends, or an error (any status but
// 200, with the start of its body).
func (d *driver) openStream(ctx context.Context, client *http.Client, base string, m int) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+d.f.read[m])
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		return nil, fmt.Errorf("GET /stream: %d %s", resp.StatusCode, b)
	}
	return resp, nil
}
