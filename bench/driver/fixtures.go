package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/synth"
)

// fixtures is what the scenarios draw their requests from: every member's
// tokens (derived from the seed, as the generator made them), and samples of
// posts, conversations and feed cursors read from the database or the API
// before the run.
type fixtures struct {
	n          int      // members 1..n
	active     []int    // members whose timelines are not dormant: those requests are sent for
	open       []int    // members no block involves: what requests are about (any viewer may see them)
	openActive []int    // active members no block involves: the searchers (see scenarios.go)
	handles    []string // by member id
	read       []string // read tokens, by member id
	write      []string // write tokens, by member id
	public     []int64  // public posts
	commented  []int64  // public posts with comments
	celebs     []int64  // members with the most followers
	convs      [][2]int64
	deep       []deepPage
	deepNote   string
}

type deepPage struct {
	member int64
	path   string
}

func loadFixtures(ctx context.Context, db *sql.DB, seed int64) (*fixtures, error) {
	f := &fixtures{}
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(max(id), 0) FROM members").Scan(&f.n); err != nil {
		return nil, err
	}
	if f.n < 20 {
		return nil, fmt.Errorf("the benchmark database has %d members: generate a data set first", f.n)
	}
	f.handles = make([]string, f.n+1)
	rows, err := db.QueryContext(ctx, "SELECT id, handle FROM members")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var h string
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return nil, err
		}
		f.handles[id] = h
	}
	rows.Close()
	f.read, f.write = make([]string, f.n+1), make([]string, f.n+1)
	for id := 1; id <= f.n; id++ {
		f.read[id] = synth.Token(seed, int64(id), auth.ScopeRead)
		f.write[id] = synth.Token(seed, int64(id), auth.ScopeWrite)
	}
	actives, err := db.QueryContext(ctx, `SELECT m.id FROM members m
		WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = m.id)
		  AND m.suspended_at IS NULL ORDER BY m.id`)
	if err != nil {
		return nil, err
	}
	for actives.Next() {
		var id int
		if err := actives.Scan(&id); err != nil {
			actives.Close()
			return nil, err
		}
		f.active = append(f.active, id)
	}
	actives.Close()
	if len(f.active) < 2 {
		return nil, fmt.Errorf("the data set has %d active members: generate it again", len(f.active))
	}
	ids := func(q string) ([]int64, error) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, rows.Err()
	}
	// Random samples, drawn with the seed so that runs compare.
	if _, err := db.ExecContext(ctx, "SELECT setseed(0.42)"); err != nil {
		return nil, err
	}
	// Requests are about posts and members that any viewer may see: a block
	// hides its two members from each other and a suspension its member from
	// everyone (a 404 the scenarios would count as an error), while the
	// viewers drawn stay any active member, blockers and blocked included,
	// so the rule's cost for them is measured; a suspended member's tokens
	// answer 401, so no viewer is suspended.
	const unblocked = `NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = %[1]s OR b.blocked_id = %[1]s)
		AND NOT EXISTS (SELECT 1 FROM members s WHERE s.id = %[1]s AND s.suspended_at IS NOT NULL)`
	if f.public, err = ids("SELECT id FROM posts WHERE visibility = 'public' AND " + fmt.Sprintf(unblocked, "posts.author_id") + " ORDER BY random() LIMIT 20000"); err != nil {
		return nil, err
	}
	if f.commented, err = ids("SELECT id FROM posts WHERE visibility = 'public' AND comment_count > 0 AND " + fmt.Sprintf(unblocked, "posts.author_id") + " ORDER BY random() LIMIT 5000"); err != nil {
		return nil, err
	}
	open, err := ids("SELECT id FROM members m WHERE " + fmt.Sprintf(unblocked, "m.id") + " ORDER BY id")
	if err != nil {
		return nil, err
	}
	for _, id := range open {
		f.open = append(f.open, int(id))
	}
	if len(f.open) == 0 {
		return nil, fmt.Errorf("every member of the benchmark database is in a block: no member for requests to be about")
	}
	inOpen := map[int]bool{}
	for _, id := range f.open {
		inOpen[id] = true
	}
	for _, id := range f.active {
		if inOpen[id] {
			f.openActive = append(f.openActive, id)
		}
	}
	if len(f.openActive) == 0 {
		f.openActive = f.active
	}
	if f.celebs, err = ids("SELECT id FROM members WHERE suspended_at IS NULL ORDER BY follower_count DESC, id LIMIT 10"); err != nil {
		return nil, err
	}
	// A member a block separates from another participant, or who shares it
	// with a suspended member, may not send there.
	rows, err = db.QueryContext(ctx, `SELECT conversation_id, member_id FROM conversation_participants p
		 WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = p.member_id)
		   AND NOT EXISTS (SELECT 1 FROM conversation_participants q JOIN members s ON s.id = q.member_id
		                    WHERE q.conversation_id = p.conversation_id AND s.suspended_at IS NOT NULL)
		   AND NOT EXISTS (SELECT 1 FROM conversation_participants q JOIN blocks b
		                     ON (b.blocker_id = p.member_id AND b.blocked_id = q.member_id)
		                     OR (b.blocked_id = p.member_id AND b.blocker_id = q.member_id)
		                    WHERE q.conversation_id = p.conversation_id)
		 ORDER BY random() LIMIT 5000`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c [2]int64
		if err := rows.Scan(&c[0], &c[1]); err != nil {
			rows.Close()
			return nil, err
		}
		f.convs = append(f.convs, c)
	}
	rows.Close()
	if len(f.public) == 0 || len(f.commented) == 0 || len(f.convs) == 0 {
		return nil, fmt.Errorf("the data set has no public posts, comments or conversations")
	}
	return f, nil
}

// loadDeepPages walks the home feed of a sample of members through the API,
// per_page=20, and keeps the URL of page `page`: a deep page needs the
// server's own cursors.
func (f *fixtures) loadDeepPages(ctx context.Context, api string, members, page int) {
	r := rand.New(rand.NewPCG(7, 7))
	type result struct {
		dp  deepPage
		err error
	}
	work := make(chan int64)
	out := make(chan result)
	client := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range work {
				path, err := f.walk(ctx, client, api, m, page)
				out <- result{deepPage{m, path}, err}
			}
		}()
	}
	go func() {
		for range members {
			work <- int64(pick(r, f.active))
		}
		close(work)
		wg.Wait()
		close(out)
	}()
	var lastErr error
	for res := range out {
		switch {
		case res.err != nil:
			lastErr = res.err
		case res.dp.path != "":
			f.deep = append(f.deep, res.dp)
		}
	}
	if len(f.deep) == 0 && lastErr != nil {
		f.deepNote = lastErr.Error()
	}
}

func (f *fixtures) walk(ctx context.Context, client *http.Client, api string, member int64, page int) (string, error) {
	path := "/api/v1/feed?per_page=20"
	for range page - 1 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+path, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", "Bearer "+f.read[member])
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		var body struct {
			Meta struct {
				NextCursor *string `json:"next_cursor"`
			} `json:"meta"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		if err != nil {
			return "", err
		}
		if body.Meta.NextCursor == nil {
			return "", nil // a short timeline: no deep page
		}
		path = "/api/v1/feed?per_page=20&cursor=" + url.QueryEscape(*body.Meta.NextCursor)
	}
	return path, nil
}

// signIn sends one GET /me with every active member's tokens, read and write, as
// members whose clients are already signed in: the server then recalls
// their principals (auth/recall.go) as it does for any token in use, and
// every scenario measures the steady state of one full token lookup per
// token per five minutes rather than a first request per member and token.
// It returns how many requests failed.
func (f *fixtures) signIn(ctx context.Context, api string) int {
	work := make(chan string)
	var failed atomic.Int64
	client := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tok := range work {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+"/api/v1/me", nil)
				if err != nil {
					failed.Add(1)
					continue
				}
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	for _, toks := range [][]string{f.read, f.write} {
		for _, id := range f.active {
			work <- toks[id]
		}
	}
	close(work)
	wg.Wait()
	return int(failed.Load())
}
