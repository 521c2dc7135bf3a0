package main

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
)

// target is one request, as vegeta's JSON target format has it.
type target struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body,omitempty"`
	Header map[string][]string `json:"header"`
}

// scenario is one load shape: what each request is and which statuses it
// may answer.
type scenario struct {
	Name  string
	Title string
	Write bool
	gen   func(r *rand.Rand, f *fixtures) target
	// want is the status a successful request answers.
	want int
	// openAt is the rate of the scenario's target (issue 8: "≥ R req/s with
	// p99 ≤ L ms", in the open model): when the closed run reaches it, the
	// open run offers at least that rate, so its p99 is the target's.
	openAt float64
	// diagnostic scenarios run only when BENCH_ONLY names them.
	diagnostic bool
}

func get(path, token string) target {
	return target{Method: "GET", URL: path, Header: map[string][]string{"Authorization": {"Bearer " + token}}}
}

func post(path, token string, body any) target {
	b, _ := json.Marshal(body)
	return target{Method: "POST", URL: path, Body: b, Header: map[string][]string{
		"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}}
}

// member draws the member a request is sent for: one of the members active
// in the data set (synth.Scale.ActiveShare), as on a real network, where
// requests come from the members who use it. Idle members' timelines are
// dormant; one of them coming back costs a rebuild (timeline.Wake).
func member(r *rand.Rand, f *fixtures) int { return pick(r, f.active) }

// anyMember draws a member a request is about (a profile, a follow): any
// member no block involves (fixtures.open).
func anyMember(r *rand.Rand, f *fixtures) int { return pick(r, f.open) }

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

var (
	searchTerms = []string{"coffee", "today", "morning coffee", "sourdough", "garden", "axolotl", "zeppelin",
		"#golang", "#travel", "#photography", "alice", "martin", "bike", "engineer", "sunset over the lake",
		"kombucha", "chess", "marathon training", "vintage camera", "lisbon", "bike or chess", "coffee -morning"}
	reactionTypes = []string{"like", "love", "haha", "wow", "sad", "angry"}
	bodyWords     = []string{"benchmark", "coffee", "today", "release", "garden", "walk", "music", "weekend", "train",
		"friends", "sunset", "bread", "notes", "ideas", "quiet", "city"}
)

func text(r *rand.Rand, words int) string {
	b := make([]byte, 0, words*8)
	for i := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, pick(r, bodyWords)...)
	}
	return string(b)
}

var scenarios = []scenario{
	{Name: "feed_home", Title: "home feed, first page (20 posts)", want: 200, openAt: 2500,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/feed?per_page=20", f.read[member(r, f)])
		}},
	{Name: "feed_home_deep", Title: "home feed, page 5 (server cursors)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			d := pick(r, f.deep)
			return get(d.path, f.read[d.member])
		}},
	{Name: "discover", Title: "discover, first page (20 public posts)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/feed?tab=discover&per_page=20", f.read[member(r, f)])
		}},
	{Name: "post", Title: "single post", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/posts/"+strconv.FormatInt(pick(r, f.public), 10), f.read[member(r, f)])
		}},
	{Name: "user_posts", Title: "a member's posts (20)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/users/"+f.handles[anyMember(r, f)]+"/posts?per_page=20", f.read[member(r, f)])
		}},
	{Name: "comments", Title: "comments of a post (20)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/posts/"+strconv.FormatInt(pick(r, f.commented), 10)+"/comments?per_page=20", f.read[member(r, f)])
		}},
	{Name: "notifications", Title: "notifications (20)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/notifications?per_page=20", f.read[member(r, f)])
		}},
	{Name: "search", Title: "search (all kinds, or posts only)", want: 200, openAt: 500,
		gen: func(r *rand.Rand, f *fixtures) target {
			q := "/api/v1/search?q=" + url.QueryEscape(pick(r, searchTerms))
			if r.IntN(2) == 0 {
				q += "&type=posts"
			}
			// Searchers are members no block involves: a block makes the
			// people matches kept for a viewer their own (search's cache key),
			// so blocked searchers would walk the index where others share
			// kept matches, and the search bounds would answer some of the
			// 64 connections 429 at the start of the closed run.
			return get(q, f.read[pick(r, f.openActive)])
		}},
	{Name: "create_post", Title: "create post", Write: true, want: 201,
		gen: func(r *rand.Rand, f *fixtures) target {
			return post("/api/v1/posts", f.write[member(r, f)], map[string]string{"body": text(r, 5+r.IntN(20)) + " #bench"})
		}},
	{Name: "create_post_celebrity", Title: "create post by a 5,000+-follower member", Write: true, want: 201,
		gen: func(r *rand.Rand, f *fixtures) target {
			return post("/api/v1/posts", f.write[pick(r, f.celebs)], map[string]string{"body": text(r, 5+r.IntN(20))})
		}},
	{Name: "react", Title: "react to a post", Write: true, want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return post("/api/v1/posts/"+strconv.FormatInt(pick(r, f.public), 10)+"/react", f.write[member(r, f)],
				map[string]string{"type": pick(r, reactionTypes)})
		}},
	{Name: "comment", Title: "comment on a post", Write: true, want: 201,
		gen: func(r *rand.Rand, f *fixtures) target {
			return post("/api/v1/posts/"+strconv.FormatInt(pick(r, f.public), 10)+"/comments", f.write[member(r, f)],
				map[string]string{"body": text(r, 3+r.IntN(15))})
		}},
	{Name: "follow_toggle", Title: "follow toggle", Write: true, want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			a, b := member(r, f), anyMember(r, f)
			for b == a {
				b = anyMember(r, f)
			}
			return post("/api/v1/users/"+f.handles[b]+"/follow", f.write[a], struct{}{})
		}},
	{Name: "profile", Title: "a member's profile", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/users/"+f.handles[anyMember(r, f)], f.read[member(r, f)])
		}},
	{Name: "conversations", Title: "the caller's conversations (20)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			return get("/api/v1/conversations?per_page=20", f.read[pick(r, f.convs)[1]])
		}},
	{Name: "messages", Title: "messages of a conversation (20)", want: 200,
		gen: func(r *rand.Rand, f *fixtures) target {
			c := pick(r, f.convs)
			return get("/api/v1/conversations/"+strconv.FormatInt(c[0], 10)+"/messages?per_page=20", f.read[c[1]])
		}},
	{Name: "send_message", Title: "send a message", Write: true, want: 201,
		gen: func(r *rand.Rand, f *fixtures) target {
			c := pick(r, f.convs)
			return post("/api/v1/conversations/"+strconv.FormatInt(c[0], 10)+"/messages", f.write[c[1]],
				map[string]string{"body": text(r, 2+r.IntN(12))})
		}},
	{Name: "mix", Title: "realistic mix (85 % reads)", want: 0, gen: mixTarget},
	// mix_reads (a diagnostic) runs right after the mix, on the data the
	// writes left (last, so that every other scenario keeps its seed): its
	// cost against its parts is what the variety of statements costs, and
	// the mix's against it what the writes add.
	{Name: "mix_reads", Title: "the realistic mix's reads alone (diagnostic)", want: 0, gen: mixReadsTarget, diagnostic: true},
	// The search flood runs its own loads (flood.go), last, so that every
	// other scenario keeps its seed.
	{Name: floodName, Title: "search flood + bystander: 4 members × 120 searches in flight (closed), another member's /me (open)"},
	// The mix again with 1,000 event streams open (streams.go), last too.
	{Name: streamsName, Title: "realistic mix with 1,000 event streams open (one per member), 2xx → notification event latency", want: 0, gen: mixTarget},
}

// mixOps is the realistic mix: reads 85 %, writes 15 % (weights in ‰).
var mixOps = []struct {
	op     string
	weight int
	want   int
	gen    func(r *rand.Rand, f *fixtures) target
}{
	{"feed_home", 280, 200, nil}, {"feed_home_deep", 60, 200, nil}, {"discover", 50, 200, nil},
	{"post", 120, 200, nil}, {"comments", 80, 200, nil}, {"user_posts", 60, 200, nil},
	{"profile", 40, 200, nil},
	{"notifications", 80, 200, nil}, {"search", 30, 200, nil},
	{"conversations", 30, 200, nil}, {"messages", 20, 200, nil},
	{"react", 60, 200, nil}, {"comment", 30, 201, nil}, {"create_post", 25, 201, nil}, {"follow_toggle", 15, 200, nil},
	{"send_message", 20, 201, nil},
}

// mixAll and mixReads are the indexes in mixOps of all the mix's
// operations and of its reads, with the sums of their weights.
var (
	mixAll, mixReads         []int
	mixWeight, mixReadWeight int
)

func init() {
	byName := map[string]scenario{}
	for _, s := range scenarios {
		byName[s.Name] = s
	}
	for i := range mixOps {
		if mixOps[i].gen == nil {
			mixOps[i].gen = byName[mixOps[i].op].gen
		}
		mixAll = append(mixAll, i)
		mixWeight += mixOps[i].weight
		if !byName[mixOps[i].op].Write {
			mixReads = append(mixReads, i)
			mixReadWeight += mixOps[i].weight
		}
	}
}

func mixTarget(r *rand.Rand, f *fixtures) target { return drawMixOp(r, f, mixAll, mixWeight) }

// mixReadsTarget draws the mix's reads in the mix's proportions.
func mixReadsTarget(r *rand.Rand, f *fixtures) target {
	return drawMixOp(r, f, mixReads, mixReadWeight)
}

// drawMixOp draws one of the operations among (indexes in mixOps, whose
// weights sum to weight) by weight, and a request of it.
func drawMixOp(r *rand.Rand, f *fixtures, among []int, weight int) target {
	n := r.IntN(weight)
	for _, i := range among {
		if n < mixOps[i].weight {
			return mixOps[i].gen(r, f)
		}
		n -= mixOps[i].weight
	}
	return mixOps[among[0]].gen(r, f)
}

// classify names the operation of a request, for the mix's breakdown and
// its expected status.
var routes = []struct {
	method string
	re     *regexp.Regexp
	op     string
}{
	{"GET", regexp.MustCompile(`^/api/v1/feed\?per_page=20$`), "feed_home"},
	{"GET", regexp.MustCompile(`^/api/v1/feed\?per_page=20&cursor=`), "feed_home_deep"},
	{"GET", regexp.MustCompile(`^/api/v1/feed\?tab=discover`), "discover"},
	{"GET", regexp.MustCompile(`^/api/v1/posts/\d+$`), "post"},
	{"GET", regexp.MustCompile(`^/api/v1/posts/\d+/comments`), "comments"},
	{"GET", regexp.MustCompile(`^/api/v1/users/\w+/posts`), "user_posts"},
	{"GET", regexp.MustCompile(`^/api/v1/users/\w+$`), "profile"},
	{"GET", regexp.MustCompile(`^/api/v1/notifications`), "notifications"},
	{"GET", regexp.MustCompile(`^/api/v1/search`), "search"},
	{"GET", regexp.MustCompile(`^/api/v1/conversations\?`), "conversations"},
	{"GET", regexp.MustCompile(`^/api/v1/conversations/\d+/messages`), "messages"},
	{"POST", regexp.MustCompile(`^/api/v1/posts/\d+/react$`), "react"},
	{"POST", regexp.MustCompile(`^/api/v1/posts/\d+/comments$`), "comment"},
	{"POST", regexp.MustCompile(`^/api/v1/posts$`), "create_post"},
	{"POST", regexp.MustCompile(`^/api/v1/users/\w+/follow$`), "follow_toggle"},
	{"POST", regexp.MustCompile(`^/api/v1/conversations/\d+/messages$`), "send_message"},
}

func classify(method, path string) string {
	for _, rt := range routes {
		if rt.method == method && rt.re.MatchString(path) {
			return rt.op
		}
	}
	return "other"
}

func wantOf(op string) int {
	for _, o := range mixOps {
		if o.op == op {
			return o.want
		}
	}
	return 200
}
