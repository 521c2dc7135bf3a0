package posts_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/seed"
)

// pollPost publishes a post with a poll (the JSON of NewPoll) as the owner
// of tok and returns it.
func pollPost(t *testing.T, env *apitest.Env, tok, visibility, poll string) gen.Post {
	t.Helper()
	return post(t, env, tok, `{"body":"canary poll","visibility":"`+visibility+`","poll":`+poll+`}`)
}

// vote sends a vote as the owner of tok.
func vote(t *testing.T, env *apitest.Env, tok string, postID int64, body string) *apitest.Response {
	t.Helper()
	return env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/poll/votes", postID), Token: tok, Body: body})
}

// wantField fails unless resp is a 422 validation_failed naming exactly one
// field, at pointer with code.
func wantField(t *testing.T, resp *apitest.Response, pointer, code string) {
	t.Helper()
	if resp.Status != 422 {
		t.Fatalf("status %d, want 422 %s at %s: %s", resp.Status, code, pointer, resp.Body)
	}
	p := resp.Problem(t)
	if p.Code != "validation_failed" || len(p.Errors) != 1 || p.Errors[0].Pointer == nil ||
		*p.Errors[0].Pointer != pointer || p.Errors[0].Code != code {
		t.Errorf("problem %s, want validation_failed with %s at %s", resp.Body, code, pointer)
	}
}

func readPoll(t *testing.T, env *apitest.Env, tok string, postID int64) gen.Poll {
	t.Helper()
	var r gen.PostResponse
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", postID), Token: tok}).JSON(t, &r)
	if r.Data.Poll == nil {
		t.Fatalf("post %d has no poll", postID)
	}
	return *r.Data.Poll
}

// TestCreatePollPost: a post with a poll is of type poll, its poll as given
// (options indexed in order, expires_at its created_at plus expires_in),
// read back the same; a poll outside its bounds is a 422 naming the member
// at fault, and writes nothing.
func TestCreatePollPost(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)

	p := post(t, env, tok, `{"body":"Settle it #dev","poll":{"question":"Tabs or spaces?","options":["Tabs","Spaces","gofmt"],"expires_in":3600}}`)
	if p.Type != gen.PostTypePoll || p.Poll == nil {
		t.Fatalf("type %q poll %v, want a poll post", p.Type, p.Poll)
	}
	created := p.CreatedAt.Time
	want := gen.Poll{ID: p.Poll.ID, Question: "Tabs or spaces?", Multiple: false,
		Options:  []gen.PollOption{{Index: 0, Title: "Tabs"}, {Index: 1, Title: "Spaces"}, {Index: 2, Title: "gofmt"}},
		OwnVotes: []int{}, Viewer: gen.PollViewer{Choices: []int{}}}
	got := *p.Poll
	if got.ExpiresAt == nil || got.ExpiresAt.Time.Sub(created) != time.Hour {
		t.Errorf("expires_at %v, want created_at %v + 1h", got.ExpiresAt, created)
	}
	got.ExpiresAt = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created poll (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*p.Poll, readPoll(t, env, tok, p.ID)); diff != "" {
		t.Errorf("poll read back unlike the created one (-created +read):\n%s", diff)
	}
	multi := post(t, env, tok, `{"body":"pick","poll":{"question":"Which?","options":["a","b"],"multiple":true,"expires_in":300}}`)
	if !multi.Poll.Multiple {
		t.Errorf("multiple = false, want true")
	}

	var before int
	env.DB.Get(&before, `SELECT count(*) FROM posts`)
	opts := func(n int) string {
		o := make([]string, n)
		for i := range o {
			o[i] = fmt.Sprintf("%q", fmt.Sprint("option ", i))
		}
		return "[" + strings.Join(o, ",") + "]"
	}
	for _, tc := range []struct{ name, poll, pointer, code string }{
		{"one option", `{"question":"q","options":["a"],"expires_in":300}`, "/poll/options", "too_short"},
		{"eleven options", `{"question":"q","options":` + opts(11) + `,"expires_in":300}`, "/poll/options", "too_long"},
		{"an option twice", `{"question":"q","options":["a","b","a"],"expires_in":300}`, "/poll/options", "duplicate"},
		{"empty option", `{"question":"q","options":["a",""],"expires_in":300}`, "/poll/options/1", "too_short"},
		{"blank option", `{"question":"q","options":["a"," \u200b"],"expires_in":300}`, "/poll/options/1", "too_short"},
		{"long option", `{"question":"q","options":["a","` + strings.Repeat("é", 101) + `"],"expires_in":300}`, "/poll/options/1", "too_long"},
		{"no question", `{"options":["a","b"],"expires_in":300}`, "/poll/question", "required"},
		{"blank question", `{"question":"  ","options":["a","b"],"expires_in":300}`, "/poll/question", "too_short"},
		{"long question", `{"question":"` + strings.Repeat("q", 301) + `","options":["a","b"],"expires_in":300}`, "/poll/question", "too_long"},
		{"no expires_in", `{"question":"q","options":["a","b"]}`, "/poll/expires_in", "required"},
		{"under five minutes", `{"question":"q","options":["a","b"],"expires_in":299}`, "/poll/expires_in", "out_of_range"},
		{"over seven days", `{"question":"q","options":["a","b"],"expires_in":604801}`, "/poll/expires_in", "out_of_range"},
		{"multiple not a boolean", `{"question":"q","options":["a","b"],"expires_in":300,"multiple":"yes"}`, "/poll/multiple", "wrong_type"},
		{"unknown member", `{"question":"q","options":["a","b"],"expires_in":300,"expires_at":"2030-01-01T00:00:00Z"}`, "/poll/expires_at", "unknown_field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":"x","poll":` + tc.poll + `}`})
			wantField(t, resp, tc.pointer, tc.code)
		})
	}
	var after int
	env.DB.Get(&after, `SELECT count(*) FROM posts`)
	if after != before {
		t.Errorf("%d posts written by refused creates", after-before)
	}
}

// TestVotePollAPI votes through the API: the answer is the poll with the
// caller's vote, the next read of the post shows it to the voter and the
// counts to everyone; each refusal has its own code, in the documented order.
func TestVotePollAPI(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	toks := map[string]string{}
	for _, h := range []string{"alice", "bob", "carol", "dave"} {
		env.Member(t, h)
		toks[h] = env.Token(t, h, auth.ScopeWrite)
	}
	single := pollPost(t, env, toks["alice"], "public", `{"question":"One?","options":["a","b","c"],"expires_in":3600}`)
	multi := pollPost(t, env, toks["alice"], "public", `{"question":"Many?","options":["a","b","c"],"multiple":true,"expires_in":3600}`)
	plain := post(t, env, toks["alice"], `{"body":"no poll here"}`)

	// The feed and the single post read a poll's live part: warm both reads
	// (and the post cache) before the vote.
	before := readPoll(t, env, toks["bob"], single.ID)
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/alice/posts", Token: toks["bob"]})
	postPath := fmt.Sprintf("/api/v1/posts/%d", single.ID)
	etag := env.Do(t, apitest.Request{Method: "GET", Path: postPath, Token: toks["bob"]}).Header.Get("ETag")

	resp := vote(t, env, toks["bob"], single.ID, `{"choices":[1]}`)
	if resp.Status != 200 {
		t.Fatalf("vote: status %d: %s", resp.Status, resp.Body)
	}
	var voted gen.PollResponse
	resp.JSON(t, &voted)
	want := before
	want.Voted, want.OwnVotes, want.Viewer = true, []int{1}, gen.PollViewer{Voted: true, Choices: []int{1}}
	want.VotesCount, want.VotersCount, want.Options[1].Votes = 1, 1, 1
	if diff := cmp.Diff(want, voted.Data); diff != "" {
		t.Errorf("vote answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(voted.Data, readPoll(t, env, toks["bob"], single.ID)); diff != "" {
		t.Errorf("next read of the post unlike the vote's answer (-vote +read):\n%s", diff)
	}
	// The post read before the vote is no longer current: no 304 for its ETag.
	if resp := env.Do(t, apitest.Request{Method: "GET", Path: postPath, Token: toks["bob"],
		Header: http.Header{"If-None-Match": {etag}}}); etag == "" || resp.Status != 200 {
		t.Errorf("GET with the ETag %q of before the vote: status %d, want 200", etag, resp.Status)
	}
	var list gen.PostList
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/alice/posts", Token: toks["bob"]}).JSON(t, &list)
	for _, p := range list.Data {
		if p.ID == single.ID && (p.Poll == nil || !p.Poll.Voted || p.Poll.VotesCount != 1) {
			t.Errorf("the member's posts list shows the poll %+v, want bob's vote", p.Poll)
		}
	}
	other := readPoll(t, env, toks["carol"], single.ID)
	if other.Voted || len(other.OwnVotes) != 0 || other.VotesCount != 1 || other.Options[1].Votes != 1 {
		t.Errorf("carol reads %+v, want bob's vote counted and none of hers", other)
	}

	path := func(id int64) string { return fmt.Sprintf("/api/v1/posts/%d/poll/votes", id) }
	for _, tc := range []struct {
		name, who string
		post      int64
		body      string
		pointer   string
		code      string
	}{
		{"again", "bob", single.ID, `{"choices":[0]}`, "/choices", "already_voted"},
		{"two in a single-choice poll", "carol", single.ID, `{"choices":[0,1]}`, "/choices", "single_choice"},
		{"no such option", "carol", single.ID, `{"choices":[3]}`, "/choices/0", "out_of_range"},
		{"no such option in multiple", "carol", multi.ID, `{"choices":[0,5]}`, "/choices/1", "out_of_range"},
		{"past every option", "carol", single.ID, `{"choices":[10]}`, "/choices/0", "out_of_range"},
		{"negative", "carol", single.ID, `{"choices":[-1]}`, "/choices/0", "out_of_range"},
		{"none", "carol", single.ID, `{"choices":[]}`, "/choices", "too_short"},
		{"twice the same", "carol", multi.ID, `{"choices":[2,2]}`, "/choices", "duplicate"},
		{"no choices member", "carol", single.ID, `{}`, "/choices", "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantField(t, env.Do(t, apitest.Request{Method: "POST", Path: path(tc.post), Token: toks[tc.who], Body: tc.body}), tc.pointer, tc.code)
		})
	}

	// Several options in a multiple-choice poll, answered in index order.
	resp = vote(t, env, toks["carol"], multi.ID, `{"choices":[2,0]}`)
	resp.JSON(t, &voted)
	if resp.Status != 200 || !cmp.Equal(voted.Data.OwnVotes, []int{0, 2}) || voted.Data.VotesCount != 2 || voted.Data.VotersCount != 1 {
		t.Errorf("multiple vote: %d %+v", resp.Status, voted.Data)
	}
	// The author may vote in their own poll.
	if resp := vote(t, env, toks["alice"], single.ID, `{"choices":[0]}`); resp.Status != 200 {
		t.Errorf("author's vote: status %d: %s", resp.Status, resp.Body)
	}

	// An expired poll: poll_closed, before already_voted.
	env.DB.MustExec(`UPDATE polls SET expires_at = now() - interval '1 second' WHERE post_id = $1`, single.ID)
	wantField(t, vote(t, env, toks["dave"], single.ID, `{"choices":[0]}`), "/choices", "poll_closed")
	wantField(t, vote(t, env, toks["bob"], single.ID, `{"choices":[0]}`), "/choices", "poll_closed")
	if p := readPoll(t, env, toks["dave"], single.ID); !p.Expired || p.VotesCount != 2 {
		t.Errorf("expired poll reads %+v", p)
	}

	// A post without a poll, and no post: 404 alike, even with an invalid body.
	missing := plain.ID + 1000
	for _, body := range []string{`{"choices":[0]}`, `{"choices":[]}`} {
		got := vote(t, env, toks["bob"], plain.ID, body)
		want := vote(t, env, toks["bob"], missing, body)
		if want.Status != 404 {
			t.Fatalf("missing post: status %d", want.Status)
		}
		sameAsMissing(t, got, want, path(plain.ID), path(missing))
	}

	// A read token may not vote.
	if resp := vote(t, env, env.Token(t, "dave", auth.ScopeRead), multi.ID, `{"choices":[0]}`); resp.Status != 403 ||
		resp.Problem(t).Code != "insufficient_scope" {
		t.Errorf("read token: status %d: %s", resp.Status, resp.Body)
	}

	// An Idempotency-Key replays the vote's answer rather than refusing a second vote.
	key := http.Header{"Idempotency-Key": {"vote-dave-1"}}
	first := env.Do(t, apitest.Request{Method: "POST", Path: path(multi.ID), Token: toks["dave"], Body: `{"choices":[1]}`, Header: key})
	again := env.Do(t, apitest.Request{Method: "POST", Path: path(multi.ID), Token: toks["dave"], Body: `{"choices":[1]}`, Header: key})
	if first.Status != 200 || again.Status != 200 || again.Header.Get("Idempotent-Replayed") != "true" || string(first.Body) != string(again.Body) {
		t.Errorf("retry with the key: %d then %d (replayed %q)", first.Status, again.Status, again.Header.Get("Idempotent-Replayed"))
	}

	if ms, err := seed.CheckCounters(context.Background(), env.DB); err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters = %v, %v, want none", ms, err)
	}
}

// TestVotePollVisibility votes as each kind of viewer in a poll of each
// visibility: a viewer who may see the post votes (200); for any other the
// vote, valid or not, answers exactly as one in a post that does not exist.
// Then the author is suspended: every vote answers so.
func TestVotePollVisibility(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond})
	ids := map[string]int64{}
	toks := map[string]string{}
	viewers := []string{"alice", "bob", "carol", "blocked", "blocker", "muter"}
	for _, h := range viewers {
		ids[h] = env.Member(t, h)
		toks[h] = env.Token(t, h, auth.ScopeWrite)
	}
	follow(t, env, ids["bob"], "alice")
	follow(t, env, ids["muter"], "alice")
	relate(t, env, toks["alice"], "block", "blocked")
	relate(t, env, toks["blocker"], "block", "alice")
	relate(t, env, toks["muter"], "mute", "alice")
	postIDs := map[string]int64{}
	for _, vis := range []string{"public", "followers", "private"} {
		postIDs[vis] = pollPost(t, env, toks["alice"], vis, `{"question":"canary?","options":["a","b"],"expires_in":3600}`).ID
	}
	missing := postIDs["private"] + 1000
	path := func(id int64) string { return fmt.Sprintf("/api/v1/posts/%d/poll/votes", id) }
	canSee := func(viewer, vis string) bool {
		return vis == "public" && viewer != "blocked" && viewer != "blocker" || viewer == "alice" ||
			(vis == "followers" && (viewer == "bob" || viewer == "muter"))
	}
	table := func(phase string, viewers []string, seen func(viewer, vis string) bool) {
		for _, viewer := range viewers {
			for _, vis := range []string{"public", "followers", "private"} {
				for _, body := range []string{`{"choices":[5]}`, `{"choices":[0]}`} {
					t.Run(phase+"/"+viewer+"/"+vis+"/"+body, func(t *testing.T) {
						got := vote(t, env, toks[viewer], postIDs[vis], body)
						if seen(viewer, vis) {
							if want := map[bool]int{true: 422, false: 200}[body == `{"choices":[5]}`]; got.Status != want {
								t.Fatalf("status %d, want %d: %s", got.Status, want, got.Body)
							}
							return
						}
						want := vote(t, env, toks[viewer], missing, body)
						sameAsMissing(t, got, want, path(postIDs[vis]), path(missing))
						if strings.Contains(string(got.Body), "canary") {
							t.Errorf("body leaks the poll: %s", got.Body)
						}
					})
				}
			}
		}
	}
	table("related", viewers, canSee)
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, ids["alice"])
	table("suspended", viewers[1:], func(string, string) bool { return false })
	env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, ids["alice"])

	var votes int
	env.DB.Get(&votes, `SELECT count(*) FROM poll_votes`)
	wantVotes := 0
	for _, viewer := range viewers {
		for _, vis := range []string{"public", "followers", "private"} {
			if canSee(viewer, vis) {
				wantVotes++
			}
		}
	}
	if votes != wantVotes {
		t.Errorf("%d votes stored, want %d (one per viewer and visible poll)", votes, wantVotes)
	}
}

// TestConcurrentDoubleVotes sends each member's vote several times at once,
// with different choices, into a single-choice and a multiple-choice poll:
// exactly one vote per member counts (one 200, the others already_voted),
// and the counters match the rows (what `socialapi check` runs).
func TestConcurrentDoubleVotes(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond})
	env.Member(t, "alice")
	author := env.Token(t, "alice", auth.ScopeWrite)
	const members, tries = 8, 4
	toks := make([]string, members)
	for i := range toks {
		h := fmt.Sprintf("m%d", i)
		env.Member(t, h)
		toks[i] = env.Token(t, h, auth.ScopeWrite)
	}
	for _, kind := range []string{"single", "multiple"} {
		t.Run(kind, func(t *testing.T) {
			p := pollPost(t, env, author, "public", fmt.Sprintf(`{"question":"race?","options":["a","b","c","d"],"multiple":%v,"expires_in":3600}`, kind == "multiple"))
			bodies := []string{`{"choices":[0]}`, `{"choices":[1]}`, `{"choices":[2]}`, `{"choices":[3]}`}
			if kind == "multiple" {
				bodies = []string{`{"choices":[0,1]}`, `{"choices":[2]}`, `{"choices":[1,3]}`, `{"choices":[0,1,2,3]}`}
			}
			var mu sync.Mutex
			statuses := map[int]int{}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for _, tok := range toks {
				for try := range tries {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						resp := env.Send(apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/poll/votes", p.ID), Token: tok, Body: bodies[try]})
						mu.Lock()
						defer mu.Unlock()
						statuses[resp.Status]++
						if resp.Status == 422 && !strings.Contains(string(resp.Body), `"already_voted"`) {
							t.Errorf("422 other than already_voted: %s", resp.Body)
						}
					}()
				}
			}
			close(start)
			wg.Wait()
			if want := map[int]int{200: members, 422: members * (tries - 1)}; !cmp.Equal(want, statuses) {
				t.Errorf("statuses %v, want %v", statuses, want)
			}
			var voters int
			env.DB.Get(&voters, `SELECT voters_count FROM polls WHERE post_id = $1`, p.ID)
			var distinct int
			env.DB.Get(&distinct, `SELECT count(DISTINCT member_id) FROM poll_votes v JOIN polls pl ON pl.id = v.poll_id WHERE pl.post_id = $1`, p.ID)
			if voters != members || distinct != members {
				t.Errorf("voters_count %d, distinct voters %d, want %d", voters, distinct, members)
			}
			if kind == "single" {
				var rows int
				env.DB.Get(&rows, `SELECT count(*) FROM poll_votes v JOIN polls pl ON pl.id = v.poll_id WHERE pl.post_id = $1`, p.ID)
				if rows != members {
					t.Errorf("%d vote rows in a single-choice poll, want %d", rows, members)
				}
			}
			if ms, err := seed.CheckCounters(context.Background(), env.DB); err != nil || len(ms) > 0 {
				t.Errorf("CheckCounters = %v, %v, want none", ms, err)
			}
		})
	}
}
