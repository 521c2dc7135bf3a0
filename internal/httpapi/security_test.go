package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// The security tests, by family: object-level authorisation (BOLA),
// visibility (VIS), enumeration (ENUM), mass assignment (MASS), host header
// (HOST), server-side requests (SSRF) and scopes (SCOPE); each test or
// subtest names its family and number.

// world is the catalogue's fixture: bob posts publicly, to followers and
// privately; alice follows bob and talks with him; carol is a stranger; dave
// is suspended.
type world struct {
	env                  *apitest.Env
	aliceRW, aliceRO     string
	bobRW, carolRW       string
	pPub, pFol, pPriv    int64 // bob's posts
	cmPriv               int64 // bob's comment on pPriv
	kAB                  int64 // conversation alice–bob
	pNone, cmNone, kNone int64
}

func newWorld(t *testing.T, o apitest.Options) *world {
	t.Helper()
	env := apitest.NewWith(t, o)
	for _, h := range []string{"alice", "bob", "carol", "dave"} {
		env.Member(t, h)
	}
	w := &world{env: env, aliceRW: env.Token(t, "alice", auth.ScopeWrite), aliceRO: env.Token(t, "alice", auth.ScopeRead),
		bobRW: env.Token(t, "bob", auth.ScopeWrite), carolRW: env.Token(t, "carol", auth.ScopeWrite)}
	w.must(t, "POST", "/api/v1/users/bob/follow", w.aliceRW, "", 200)
	w.pPub = w.id(t, "POST", "/api/v1/posts", w.bobRW, `{"body":"pub canary-pub-1","visibility":"public"}`)
	w.pFol = w.id(t, "POST", "/api/v1/posts", w.bobRW, `{"body":"fol canary-fol-2","visibility":"followers"}`)
	w.pPriv = w.id(t, "POST", "/api/v1/posts", w.bobRW, `{"body":"priv canary-priv-3","visibility":"private"}`)
	w.cmPriv = w.id(t, "POST", fmt.Sprintf("/api/v1/posts/%d/comments", w.pPriv), w.bobRW, `{"body":"secret comment"}`)
	w.kAB = w.id(t, "POST", "/api/v1/conversations", w.bobRW, `{"participants":["alice"],"body":"hi canary-dm-4"}`)
	if _, err := env.DB.Exec(`UPDATE members SET suspended_at = now() WHERE handle = 'dave'`); err != nil {
		t.Fatal(err)
	}
	w.pNone, w.cmNone, w.kNone = 999999, 999999, 999999
	return w
}

func (w *world) send(t *testing.T, method, path, tok, body string) *apitest.Response {
	t.Helper()
	return w.env.Do(t, apitest.Request{Method: method, Path: path, Token: tok, Body: body})
}

func (w *world) must(t *testing.T, method, path, tok, body string, status int) *apitest.Response {
	t.Helper()
	resp := w.send(t, method, path, tok, body)
	if resp.Status != status {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.Status, status, resp.Body)
	}
	return resp
}

func (w *world) id(t *testing.T, method, path, tok, body string) int64 {
	t.Helper()
	var v struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	w.must(t, method, path, tok, body, 201).JSON(t, &v)
	return v.Data.ID
}

// counts is a snapshot of every table an attack could write to.
func (w *world) counts(t *testing.T) string {
	t.Helper()
	var s string
	err := w.env.DB.Get(&s, `SELECT concat_ws(' ',
		(SELECT count(*) FROM posts), (SELECT count(*) FROM comments), (SELECT count(*) FROM reactions),
		(SELECT count(*) FROM follows), (SELECT count(*) FROM messages), (SELECT count(*) FROM notifications),
		(SELECT count(*) FROM conversations), (SELECT coalesce(sum(comment_count + like_count), 0) FROM posts),
		(SELECT coalesce(sum(view_count), 0) FROM posts))`)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameAnswer requires two responses to be identical but for their request
// ids, their paths (in instance, and so Content-Length) and the rate-limit
// budget they spent.
func sameAnswer(t *testing.T, hiddenPath string, hidden *apitest.Response, nonePath string, none *apitest.Response) {
	t.Helper()
	if hidden.Status != none.Status {
		t.Fatalf("hidden: %d %s; nonexistent: %d %s", hidden.Status, hidden.Body, none.Status, none.Body)
	}
	norm := func(r *apitest.Response, path string) (string, string) {
		b := strings.ReplaceAll(string(r.Body), r.Header.Get("X-Request-Id"), "RID")
		b = strings.ReplaceAll(b, `"instance":"`+strings.SplitN(path, "?", 2)[0]+`"`, `"instance":"PATH"`)
		var hs []string
		for k, vs := range r.Header {
			switch k {
			case "X-Request-Id", "Ratelimit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset",
				"Content-Length": // the body's, compared above with its path normalised
				continue
			}
			hs = append(hs, k+": "+strings.Join(vs, ", "))
		}
		slices.Sort(hs)
		return b, strings.Join(hs, "\n")
	}
	hb, hh := norm(hidden, hiddenPath)
	nb, nh := norm(none, nonePath)
	if hb != nb {
		t.Errorf("bodies differ:\nhidden      %s\nnonexistent %s", hb, nb)
	}
	if hh != nh {
		t.Errorf("headers differ:\nhidden:\n%s\nnonexistent:\n%s", hh, nh)
	}
}

// TestHiddenObjectsAnswerAsMissing: every endpoint that takes an id or a handle answers a
// caller who may not see the object exactly as if it did not exist (same
// status, headers and body), and changes nothing (BOLA-01/02/05/06, VIS-03,
// ENUM-01/02).
func TestHiddenObjectsAnswerAsMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	post := func(id int64, rest string) string { return fmt.Sprintf("/api/v1/posts/%d%s", id, rest) }
	conv := func(id int64, rest string) string { return fmt.Sprintf("/api/v1/conversations/%d%s", id, rest) }
	tests := []struct {
		id, method, hidden, none, body string
	}{
		{"BOLA-01 messages of another's conversation", "GET", conv(w.kAB, "/messages"), conv(w.kNone, "/messages"), ""},
		{"BOLA-02 message into another's conversation", "POST", conv(w.kAB, "/messages"), conv(w.kNone, "/messages"), `{"body":"x"}`},
		{"BOLA-02 invalid message into another's conversation", "POST", conv(w.kAB, "/messages"), conv(w.kNone, "/messages"), `{"body":""}`},
		{"BOLA-02 mark another's conversation read", "POST", conv(w.kAB, "/read"), conv(w.kNone, "/read"), ""},
		{"BOLA-05 delete an invisible post", "DELETE", post(w.pPriv, ""), post(w.pNone, ""), ""},
		{"VIS-01 get a private post", "GET", post(w.pPriv, ""), post(w.pNone, ""), ""},
		{"VIS-01 get a followers-only post", "GET", post(w.pFol, ""), post(w.pNone, ""), ""},
		{"VIS-01 comments of a private post", "GET", post(w.pPriv, "/comments"), post(w.pNone, "/comments"), ""},
		{"VIS-03 react to a private post", "POST", post(w.pPriv, "/react"), post(w.pNone, "/react"), `{"type":"like"}`},
		{"VIS-03 remove a reaction from a private post", "DELETE", post(w.pPriv, "/react"), post(w.pNone, "/react"), ""},
		{"VIS-03 comment on a private post", "POST", post(w.pPriv, "/comments"), post(w.pNone, "/comments"), `{"body":"x"}`},
		{"VIS-03 invalid comment on a private post", "POST", post(w.pPriv, "/comments"), post(w.pNone, "/comments"), `{"body":"","zzz":1}`},
		{"BOLA-06 reply to a comment of a private post", "POST", post(w.pPub, "/comments"), post(w.pPub, "/comments"), ""},
		{"ENUM-02 suspended member's profile", "GET", "/api/v1/users/dave", "/api/v1/users/nosuchuser", ""},
		{"ENUM-02 suspended member's posts", "GET", "/api/v1/users/dave/posts", "/api/v1/users/nosuchuser/posts", ""},
		{"ENUM-02 follow a suspended member", "POST", "/api/v1/users/dave/follow", "/api/v1/users/nosuchuser/follow", ""},
	}
	before := w.counts(t)
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			hb, nb := tt.body, tt.body
			if strings.HasPrefix(tt.id, "BOLA-06") {
				hb = fmt.Sprintf(`{"body":"x","parent_id":%d}`, w.cmPriv)
				nb = fmt.Sprintf(`{"body":"x","parent_id":%d}`, w.cmNone)
			}
			hidden := w.send(t, tt.method, tt.hidden, w.carolRW, hb)
			none := w.send(t, tt.method, tt.none, w.carolRW, nb)
			if hidden.Status != 404 && hidden.Status != 422 {
				t.Errorf("status %d, want 404 (or 422 for a parent): %s", hidden.Status, hidden.Body)
			}
			sameAnswer(t, tt.hidden, hidden, tt.none, none)
		})
	}
	if after := w.counts(t); after != before {
		t.Errorf("rows changed by rejected requests: %s → %s", before, after)
	}
	// BOLA-04: visible but not yours is 403, and the post stays.
	w.must(t, "DELETE", post(w.pPub, ""), w.aliceRW, "", 403)
	w.must(t, "GET", post(w.pPub, ""), w.aliceRW, "", 200)
}

// TestNotFoundSpendsReadBudget: 404s spend the read budget, so scraping ids costs quota.
func TestNotFoundSpendsReadBudget(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour})
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	counts := map[int]int{}
	for n := range 130 {
		counts[env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", 1000+n), Token: tok}).Status]++
	}
	if counts[404] != 120 || counts[429] != 10 {
		t.Errorf("130 GETs of nonexistent posts: %v, want 120 × 404 then 10 × 429", counts)
	}
}

// TestServerOwnedFieldsRefused: request bodies are closed: fields the server owns are refused
// (422), never applied, in every write body (MASS-01..05).
func TestServerOwnedFieldsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	before := w.counts(t)
	bad := []struct{ id, path, body string }{
		{"MASS-01 post", "/api/v1/posts", `{"body":"x","visibility":"public","id":1,"author":"carol","author_id":3,"created_at":"2000-01-01T00:00:00Z","url":"https://evil.example/p","reaction_count":999,"pinned":true}`},
		{"MASS-01 post counts", "/api/v1/posts", `{"body":"x","counts":{"views":1000}}`},
		{"MASS-02 comment", fmt.Sprintf("/api/v1/posts/%d/comments", w.pPub), `{"body":"x","post_id":1,"author":"carol"}`},
		{"MASS-02 message", fmt.Sprintf("/api/v1/conversations/%d/messages", w.kAB), `{"body":"x","conversation_id":1,"sender":"bob"}`},
		{"MASS-02 reaction", fmt.Sprintf("/api/v1/posts/%d/react", w.pPub), `{"type":"like","member_id":3,"count":100}`},
		{"MASS-02 conversation", "/api/v1/conversations", `{"participants":["bob"],"body":"x","id":1,"created_by":"bob"}`},
		{"MASS-04 upper-case key", "/api/v1/posts", `{"body":"x","VISIBILITY":"private"}`},
		{"MASS-04 case variant next to the real key", "/api/v1/posts", `{"body":"x","Visibility":"private","visibility":"public"}`},
	}
	for _, tt := range bad {
		t.Run(tt.id, func(t *testing.T) {
			w.must(t, "POST", tt.path, w.aliceRW, tt.body, 422)
		})
	}
	t.Run("MASS-03 query parameters on a write", func(t *testing.T) {
		w.must(t, "POST", "/api/v1/posts?author_id=3&visibility=private", w.aliceRW, `{"body":"x","visibility":"public"}`, 400)
	})
	if after := w.counts(t); after != before {
		t.Errorf("rows changed by refused requests: %s → %s", before, after)
	}
	t.Run("MASS-05 duplicate keys are refused: no reader picks its own value", func(t *testing.T) {
		before := w.counts(t)
		resp := w.must(t, "POST", "/api/v1/posts", w.aliceRW, `{"body":"x","visibility":"private","visibility":"public"}`, 400)
		if p := resp.Problem(t); p.Code != "invalid_json" || len(p.Errors) != 1 || p.Errors[0].Pointer == nil || *p.Errors[0].Pointer != "/visibility" {
			t.Errorf("problem %s, want invalid_json at /visibility", resp.Body)
		}
		if after := w.counts(t); after != before {
			t.Errorf("rows changed by a refused request: %s → %s", before, after)
		}
	})
}

// hostHeaders are every header a proxy or client might use to name another
// host or scheme (HOST-02).
var hostHeaders = http.Header{
	"X-Forwarded-Host":     {"evil.example"},
	"X-Forwarded-Proto":    {"javascript"},
	"X-Forwarded-Protocol": {"http"},
	"X-Forwarded-Ssl":      {"off"},
	"X-Url-Scheme":         {"ftp"},
	"Forwarded":            {"host=evil.example;proto=http"},
	"X-Original-Host":      {"evil.example"},
	"X-Host":               {"evil.example"},
	"X-Forwarded-Prefix":   {"/evil"},
}

// noForeignURL fails when a body or header names anything but the public URL.
func noForeignURL(t *testing.T, resp *apitest.Response, hosts ...string) {
	t.Helper()
	all := string(resp.Body) + resp.Header.Get("Location") + resp.Header.Get("Link")
	for _, h := range append(hosts, "evil.example", "javascript:", "ftp:", "/evil") {
		if strings.Contains(strings.ToLower(all), strings.ToLower(h)) {
			t.Errorf("response reflects %q: %s %s", h, resp.Header, resp.Body)
		}
	}
}

// TestURLsComeFromPublicURLOnly: absolute URLs come from PUBLIC_URL only (HOST-01..06).
func TestURLsComeFromPublicURLOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	canonical := func(t *testing.T, resp *apitest.Response) int64 {
		t.Helper()
		var p struct {
			Data struct {
				ID  int64  `json:"id"`
				URL string `json:"url"`
			} `json:"data"`
		}
		resp.JSON(t, &p)
		if want := apitest.PublicURL + "/@alice/posts/" + fmt.Sprint(p.Data.ID); p.Data.URL != want {
			t.Errorf("url = %q, want %q", p.Data.URL, want)
		}
		if loc := resp.Header.Get("Location"); loc != "" && !strings.HasPrefix(loc, apitest.PublicURL+"/api/v1/") {
			t.Errorf("Location = %q", loc)
		}
		return p.Data.ID
	}
	hosts := []string{"evil.example", "API-A.TEST.:443", "api-a.test:8080", "[::1]:80", "127.0.0.1:9"}
	for _, host := range hosts {
		t.Run("HOST-01/04 Host "+host, func(t *testing.T) {
			h := hostHeaders.Clone()
			h.Set("Host", host)
			resp := w.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: w.aliceRW, Body: `{"body":"h"}`, Header: h})
			if resp.Status != 201 {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			id := canonical(t, resp)
			noForeignURL(t, resp, strings.Trim(strings.ToLower(host), "[]."))
			// HOST-03: read back under another host name: the same URL.
			h.Set("Host", "api-b.test")
			back := w.env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", id), Token: w.aliceRW, Header: h})
			canonical(t, back)
			noForeignURL(t, back, "api-b.test")
			list := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=1", Token: w.aliceRW, Header: h})
			noForeignURL(t, list, "api-b.test")
			problem := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/posts/999999", Token: w.aliceRW, Header: h})
			noForeignURL(t, problem, "api-b.test")
		})
	}

	srv := httptest.NewServer(w.env.Echo)
	defer srv.Close()
	raw := func(t *testing.T, head, body string) (int, string) {
		t.Helper()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(conn, head+"\r\n"+body); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b) + resp.Header.Get("Location")
	}
	t.Run("HOST-05 absolute-form request line", func(t *testing.T) {
		body := `{"body":"absolute"}`
		st, got := raw(t, "POST http://evil.example/api/v1/posts HTTP/1.1\r\nHost: api-a.test\r\nAuthorization: Bearer "+w.aliceRW+
			"\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(body))+"\r\nConnection: close\r\n", body)
		if st != 201 || strings.Contains(got, "evil.example") || strings.Contains(got, "api-a.test") || !strings.Contains(got, apitest.PublicURL+"/@alice/posts/") {
			t.Errorf("status %d: %s", st, got)
		}
	})
	t.Run("HOST-06 Host with spaces or CR/LF", func(t *testing.T) {
		for _, host := range []string{"evil example", "evil.example\rX-Injected: 1", "a b:80"} {
			t.Run(fmt.Sprintf("%q", host), func(t *testing.T) {
				st, _ := raw(t, "GET /api/v1/me HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+w.aliceRW+"\r\nConnection: close\r\n", "")
				if st != 400 {
					t.Errorf("Host %q: status %d, want 400", host, st)
				}
			})
		}
	})
}

// TestLinkAcceptsOnlyHTTPURLs: link accepts only absolute http(s) URLs without credentials,
// within 2,048 characters.
func TestLinkAcceptsOnlyHTTPURLs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	before := w.counts(t)
	for _, link := range []string{
		"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "gopher://x", "ftp://x",
		"//evil.example", "http:/x", " https://x.example", "https://user:pw@x.example/", "http://good.example@127.0.0.1/",
		"https://", "https://x.example/" + strings.Repeat("a", 2049-len("https://x.example/")+1), "HTTPS://x.example\nfoo",
	} {
		t.Run(fmt.Sprintf("%.60q", link), func(t *testing.T) {
			resp := w.send(t, "POST", "/api/v1/posts", w.aliceRW, `{"body":"x","link":`+mustJSONString(link)+`}`)
			if resp.Status != 422 && resp.Status != 400 {
				t.Errorf("link %.60q: status %d, want 422: %s", link, resp.Status, resp.Body)
			}
		})
	}
	if after := w.counts(t); after != before {
		t.Errorf("refused links stored: %s → %s", before, after)
	}
}

// TestLinkIsNeverFetched: the server never fetches a post's link: a canary on
// 127.0.0.1 gets no request while the post is created, read, listed and
// searched; the link is stored as given.
func TestLinkIsNeverFetched(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer canary.Close()
	w := newWorld(t, apitest.Options{})
	link := canary.URL + "/canary?x=1"
	id := w.id(t, "POST", "/api/v1/posts", w.aliceRW, `{"body":"see canarylink","link":"`+link+`"}`)
	for _, path := range []string{fmt.Sprintf("/api/v1/posts/%d", id), "/api/v1/feed", "/api/v1/feed?tab=discover", "/api/v1/users/alice/posts", "/api/v1/search?q=canarylink"} {
		t.Run(path, func(t *testing.T) {
			resp := w.must(t, "GET", path, w.bobRW, "", 200)
			if strings.HasSuffix(path, fmt.Sprint(id)) && !strings.Contains(string(resp.Body), `"link":`+mustJSONString(link)) {
				t.Errorf("GET %s does not show the link as given: %s", path, resp.Body)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Errorf("canary received %d requests, want 0", n)
	}
}

// TestMethodOverrideIgnored: method overrides are ignored: a GET stays a GET.
func TestMethodOverrideIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	id := w.id(t, "POST", "/api/v1/posts", w.aliceRW, `{"body":"keep me"}`)
	path := fmt.Sprintf("/api/v1/posts/%d", id)
	for _, h := range []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"} {
		t.Run(h, func(t *testing.T) {
			for _, tok := range []string{w.aliceRO, w.aliceRW} {
				resp := w.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: tok, Header: http.Header{h: {"DELETE"}}})
				if resp.Status != 200 {
					t.Errorf("GET with %s: DELETE: status %d", h, resp.Status)
				}
				resp = w.env.Do(t, apitest.Request{Method: "POST", Path: path, Token: tok, Body: `{}`, Header: http.Header{h: {"DELETE"}}})
				if resp.Status != 405 && resp.Status != 403 {
					t.Errorf("POST with %s: DELETE: status %d, want 405", h, resp.Status)
				}
			}
		})
	}
	w.must(t, "GET", path+"?_method=DELETE", w.aliceRW, "", 400)
	w.must(t, "POST", path+"?_method=DELETE", w.aliceRW, "", 405)
	w.must(t, "GET", path, w.aliceRW, "", 200)
}

// TestUnsupportedMethodsAnswer405: PUT, PATCH and TRACE on every path are 405 with Allow;
// HEAD and OPTIONS change nothing and never fail with a 5xx.
func TestUnsupportedMethodsAnswer405(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{})
	paths := map[string]string{ // path → its methods
		"/api/v1/": "GET", "/api/v1/me": "GET", "/api/v1/feed": "GET", "/api/v1/posts": "POST",
		fmt.Sprintf("/api/v1/posts/%d", w.pPub):          "DELETE, GET",
		fmt.Sprintf("/api/v1/posts/%d/react", w.pPub):    "DELETE, POST",
		fmt.Sprintf("/api/v1/posts/%d/comments", w.pPub): "GET, POST",
		"/api/v1/users/bob":                              "GET", "/api/v1/users/bob/posts": "GET", "/api/v1/users/bob/follow": "POST",
		"/api/v1/notifications": "GET", "/api/v1/notifications/read": "POST", "/api/v1/conversations": "GET, POST",
		fmt.Sprintf("/api/v1/conversations/%d/messages", w.kAB): "GET, POST",
		fmt.Sprintf("/api/v1/conversations/%d/read", w.kAB):     "POST",
		"/api/v1/market": "GET", "/api/v1/jobs": "GET", "/api/v1/search": "GET",
	}
	before := w.counts(t)
	for path, allow := range paths {
		t.Run(path, func(t *testing.T) {
			for _, m := range []string{"PUT", "PATCH", "TRACE"} {
				resp := w.env.Do(t, apitest.Request{Method: m, Path: path, Token: w.aliceRW})
				got := strings.Split(resp.Header.Get("Allow"), ", ")
				slices.Sort(got)
				if resp.Status != 405 || strings.Join(got, ", ") != strings.Replace(allow, "GET", "GET, HEAD", 1) {
					t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", m, path, resp.Status, resp.Header.Get("Allow"), allow)
				}
			}
			for _, m := range []string{"HEAD", "OPTIONS"} {
				if resp := w.env.Send(apitest.Request{Method: m, Path: path, Token: w.aliceRW}); resp.Status >= 500 {
					t.Errorf("%s %s: status %d", m, path, resp.Status)
				}
			}
		})
	}
	if after := w.counts(t); after != before {
		t.Errorf("rows changed by PUT/PATCH/TRACE/HEAD/OPTIONS: %s → %s", before, after)
	}
}

func mustJSONString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
