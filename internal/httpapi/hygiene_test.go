package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// The HTTP hygiene of the edge: media types, HEAD, empty query values,
// malformed path parameters and the /api/v1 redirect (openapi.yaml,
// Conventions and Order of checks).

// hygiene is a small world: bob posts publicly and talks with alice.
type hygiene struct {
	env          *apitest.Env
	alice, bob   string // write tokens
	post, thread int64
}

func newHygiene(t *testing.T) *hygiene {
	t.Helper()
	return newHygieneWith(t, apitest.Options{})
}

// newHygieneWith is newHygiene on a server built with o.
func newHygieneWith(t *testing.T, o apitest.Options) *hygiene {
	t.Helper()
	env := apitest.NewWith(t, o)
	env.Member(t, "alice")
	env.Member(t, "bob")
	h := &hygiene{env: env, alice: env.Token(t, "alice", auth.ScopeWrite), bob: env.Token(t, "bob", auth.ScopeWrite)}
	h.post = h.created(t, "/api/v1/posts", `{"body":"hello","visibility":"public"}`)
	h.thread = h.created(t, "/api/v1/conversations", `{"participants":["alice"],"body":"hi"}`)
	return h
}

func (h *hygiene) created(t *testing.T, path, body string) int64 {
	t.Helper()
	resp := h.env.Do(t, apitest.Request{Method: "POST", Path: path, Token: h.bob, Body: body})
	if resp.Status != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, resp.Status, resp.Body)
	}
	var v struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	resp.JSON(t, &v)
	return v.Data.ID
}

// specOp is one operation of the spec.
type specOp struct {
	method, path string // path as in the spec: /posts/{id}
	op           *openapi3.Operation
	params       openapi3.Parameters
}

// specOps lists the spec's operations, sorted, optionally of one method.
func specOps(t *testing.T, method string) []specOp {
	t.Helper()
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	var ops []specOp
	for path, item := range spec.Paths.Map() {
		for m, op := range item.Operations() {
			if method == "" || m == method {
				ops = append(ops, specOp{m, path, op, append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...)})
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].method+ops[i].path < ops[j].method+ops[j].path })
	if len(ops) == 0 {
		t.Fatalf("no %s operations in the spec", method)
	}
	return ops
}

// streamed reports whether o answers a stream (text/event-stream) rather
// than one document.
func streamed(o specOp) bool {
	r := o.op.Responses.Status(http.StatusOK)
	return r != nil && r.Value != nil && r.Value.Content.Get("text/event-stream") != nil
}

// url is the operation's path with the world's resources in it and its
// required query parameters set to their examples, plus extra.
func (h *hygiene) url(t *testing.T, o specOp, extra string) string {
	t.Helper()
	id := h.post
	if strings.HasPrefix(o.path, "/conversations/") {
		id = h.thread
	}
	p := strings.NewReplacer("{id}", strconv.FormatInt(id, 10), "{handle}", "bob").Replace(o.path)
	q := url.Values{}
	for _, pr := range o.params {
		if v := pr.Value; v.In == openapi3.ParameterInQuery && v.Required {
			q.Set(v.Name, fmt.Sprint(v.Schema.Value.Example))
		}
	}
	raw := q.Encode()
	if extra != "" {
		raw = strings.TrimPrefix(raw+"&"+extra, "&")
	}
	if raw != "" {
		p += "?" + raw
	}
	return "/api/v1" + p
}

func (o specOp) declares(name, in string) bool {
	for _, p := range o.params {
		if p.Value.Name == name && p.Value.In == in {
			return true
		}
	}
	return false
}

// wantParam fails unless resp is 400 invalid_parameter naming param.
func wantParam(t *testing.T, what string, resp *apitest.Response, param string) {
	t.Helper()
	if resp.Status != http.StatusBadRequest {
		t.Fatalf("%s: status %d, want 400: %s", what, resp.Status, resp.Body)
	}
	p := resp.Problem(t)
	if p.Code != "invalid_parameter" {
		t.Fatalf("%s: code %s, want invalid_parameter", what, p.Code)
	}
	for _, e := range p.Errors {
		if e.Parameter != nil && *e.Parameter == param {
			return
		}
	}
	t.Fatalf("%s: no error names %s: %s", what, param, resp.Body)
}

func TestHygieneMediaTypeCaseInsensitive(t *testing.T) {
	h := newHygiene(t)
	for _, tc := range []struct {
		ct     string
		body   string
		status int
	}{
		{"Application/JSON; charset=UTF-8", `{"body":"mixed case"}`, http.StatusCreated},
		{"APPLICATION/JSON", `{"body":"upper case"}`, http.StatusCreated},
		{"application/json;Charset=utf-8", `{"body":"param name"}`, http.StatusCreated},
		// The body reaches the validator: a 422, not a 415.
		{"Application/Json", `{"body":""}`, http.StatusUnprocessableEntity},
		{"application/json; charset=iso-8859-1", `{"body":"latin-1"}`, http.StatusUnsupportedMediaType},
		{"text/plain", `{"body":"text"}`, http.StatusUnsupportedMediaType},
		{"application/jsonx", `{"body":"text"}`, http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.ct, func(t *testing.T) {
			resp := h.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: h.alice, Body: tc.body,
				Header: http.Header{"Content-Type": {tc.ct}}})
			if resp.Status != tc.status {
				t.Errorf("Content-Type %q: status %d, want %d: %s", tc.ct, resp.Status, tc.status, resp.Body)
			}
		})
	}
	// Every operation with a body reads it the same way: a comment.
	resp := h.env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/comments", h.post), Token: h.alice,
		Body: `{"body":"a comment"}`, Header: http.Header{"Content-Type": {"Application/JSON; Charset=\"UTF-8\""}}})
	if resp.Status != http.StatusCreated {
		t.Errorf("comment with a mixed-case media type: status %d: %s", resp.Status, resp.Body)
	}
}

// volatile are the headers two requests in a row differ in.
var volatile = map[string]bool{"X-Request-Id": true, "Ratelimit": true, "X-Ratelimit-Remaining": true, "X-Ratelimit-Reset": true}

// sameHeaders fails unless a HEAD's headers are its GET's, but for those
// that change from one request to the next.
func sameHeaders(t *testing.T, what string, get, head http.Header) {
	t.Helper()
	for k := range get {
		if !volatile[k] && get.Get(k) != head.Get(k) {
			t.Errorf("%s: header %s: GET %q, HEAD %q", what, k, get.Get(k), head.Get(k))
		}
	}
	for k := range head {
		if _, ok := get[k]; !ok {
			t.Errorf("%s: header %s only on the HEAD", what, k)
		}
	}
}

func TestHygieneHeadAnswersEveryGet(t *testing.T) {
	h := newHygiene(t)
	for _, o := range specOps(t, http.MethodGet) {
		path := h.url(t, o, "")
		if streamed(o) {
			// The stream's GET never ends and has no ETag nor length, so
			// its HEAD is checked alone: the GET's status and headers
			// (Check validates them against the 200's), no body, one read
			// spent. The GET is covered by stream_test.go at the root.
			before := h.env.Do(t, apitest.Request{Method: "HEAD", Path: path, Token: h.alice})
			head := h.env.Do(t, apitest.Request{Method: "HEAD", Path: path, Token: h.alice})
			if head.Status != http.StatusOK || head.Header.Get("Content-Type") != "text/event-stream" || head.Header.Get("X-Accel-Buffering") != "no" {
				t.Errorf("%s: HEAD %d, Content-Type %q, X-Accel-Buffering %q, want 200 text/event-stream no", path, head.Status, head.Header.Get("Content-Type"), head.Header.Get("X-Accel-Buffering"))
			}
			b, _ := strconv.Atoi(before.Header.Get("X-Ratelimit-Remaining"))
			if hd, _ := strconv.Atoi(head.Header.Get("X-Ratelimit-Remaining")); hd != b-1 || !strings.HasPrefix(head.Header.Get("RateLimit"), `"read"`) {
				t.Errorf("%s: HEAD left %d of the read budget after %d (%s)", path, hd, b, head.Header.Get("RateLimit"))
			}
			continue
		}
		get := h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice})
		head := h.env.Do(t, apitest.Request{Method: "HEAD", Path: path, Token: h.alice}) // Check: no body
		if get.Status != http.StatusOK || head.Status != get.Status {
			t.Errorf("%s: GET %d, HEAD %d, want 200 both: %s", path, get.Status, head.Status, get.Body)
			continue
		}
		sameHeaders(t, path, get.Header, head.Header)
		if head.Header.Get("Content-Length") != strconv.Itoa(len(get.Body)) {
			t.Errorf("%s: HEAD Content-Length %q, the GET's body has %d bytes", path, head.Header.Get("Content-Length"), len(get.Body))
		}
		// A HEAD spends the read budget as the GET does.
		g, _ := strconv.Atoi(get.Header.Get("X-Ratelimit-Remaining"))
		if hd, _ := strconv.Atoi(head.Header.Get("X-Ratelimit-Remaining")); hd != g-1 || !strings.HasPrefix(head.Header.Get("RateLimit"), `"read"`) {
			t.Errorf("%s: HEAD left %d of the read budget after the GET's %d (%s)", path, hd, g, head.Header.Get("RateLimit"))
		}
		// And is conditional as the GET is.
		cond := h.env.Do(t, apitest.Request{Method: "HEAD", Path: path, Token: h.alice, Header: http.Header{"If-None-Match": {get.Header.Get("ETag")}}})
		if cond.Status != http.StatusNotModified {
			t.Errorf("%s: HEAD with the GET's ETag: %d, want 304", path, cond.Status)
		}
	}
}

func TestHygieneHeadMatchesGet(t *testing.T) {
	h := newHygiene(t)
	for _, tc := range []struct {
		path, token string
		status      int
	}{
		{"/api/v1/users/bo%62", h.alice, http.StatusOK}, // escaped: matched by the spec's router
		{"/api/v1/posts/999999", h.alice, http.StatusNotFound},
		{"/api/v1/posts/0", h.alice, http.StatusBadRequest},
		{"/api/v1/feed?per_page=0", h.alice, http.StatusBadRequest},
		{"/api/v1/feed", "", http.StatusUnauthorized},
		{"/api/v1/nowhere", h.alice, http.StatusNotFound},
	} {
		t.Run(tc.path, func(t *testing.T) {
			get := h.env.Do(t, apitest.Request{Method: "GET", Path: tc.path, Token: tc.token})
			head := h.env.Do(t, apitest.Request{Method: "HEAD", Path: tc.path, Token: tc.token})
			if head.Status != tc.status || get.Status != tc.status {
				t.Errorf("%s: GET %d, HEAD %d, want %d", tc.path, get.Status, head.Status, tc.status)
				return
			}
			sameHeaders(t, tc.path, get.Header, head.Header)
			if cl := head.Header.Get("Content-Length"); cl == "" || cl != strconv.Itoa(len(get.Body)) {
				t.Errorf("%s: HEAD Content-Length %q, the GET's problem has %d bytes", tc.path, cl, len(get.Body))
			}
		})
	}
	// A path with no GET: the HEAD is not allowed either (and its detail
	// names HEAD).
	resp := h.env.Do(t, apitest.Request{Method: "HEAD", Path: "/api/v1/posts", Token: h.alice})
	if resp.Status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || resp.Header.Get("Content-Length") == "" {
		t.Errorf("HEAD /posts: %d, Allow %q, Content-Length %q, want 405 with POST", resp.Status, resp.Header.Get("Allow"), resp.Header.Get("Content-Length"))
	}
	// Where GET is allowed, so is HEAD.
	resp = h.env.Do(t, apitest.Request{Method: "DELETE", Path: "/api/v1/me", Token: h.alice})
	if resp.Status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE /me: %d, Allow %q, want 405 with GET, HEAD", resp.Status, resp.Header.Get("Allow"))
	}
}

func TestHygieneEmptyQueryValue(t *testing.T) {
	h := newHygiene(t)
	lists := 0
	for _, o := range specOps(t, http.MethodGet) {
		if o.declares("per_page", openapi3.ParameterInQuery) {
			lists++
		}
		for _, p := range o.params {
			if p.Value.In != openapi3.ParameterInQuery {
				continue
			}
			path := h.url(t, o, "")
			q := url.Values{}
			if i := strings.IndexByte(path, '?'); i >= 0 {
				q, _ = url.ParseQuery(path[i+1:])
				path = path[:i]
			}
			q.Set(p.Value.Name, "")
			path += "?" + q.Encode()
			wantParam(t, path, h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice}), p.Value.Name)
		}
	}
	if lists < 8 {
		t.Fatalf("only %d operations declare per_page", lists)
	}
}

func TestHygieneMalformedPathParameter(t *testing.T) {
	// Every operation with a path parameter, several values each: more
	// writes than a minute's budget, so the budget refills at once.
	h := newHygieneWith(t, apitest.Options{RateWindow: time.Millisecond})
	bad := map[string][]string{
		"id":     {"9007199254740992", "99999999999999999999", "0", "-1", "abc", "1%00", "1%FF", "1.0"},
		"handle": {"a%00", "%FF", "a-b", strings.Repeat("a", 31)},
	}
	seen := map[string]bool{}
	for _, o := range specOps(t, "") {
		for name, values := range bad {
			if !o.declares(name, openapi3.ParameterInPath) {
				continue
			}
			seen[name] = true
			for _, v := range values {
				path := "/api/v1" + strings.Replace(o.path, "{"+name+"}", v, 1)
				req := apitest.Request{Method: o.method, Path: path, Token: h.alice}
				if o.op.RequestBody != nil {
					req.Body = `{}`
				}
				wantParam(t, o.method+" "+path, h.env.Do(t, req), name)
			}
		}
	}
	if !seen["id"] || !seen["handle"] {
		t.Fatalf("path parameters found: %v", seen)
	}
	// A well-formed id or handle that names nothing is still a 404, even
	// when something else in the request is malformed.
	for _, path := range []string{"/api/v1/posts/9007199254740991", "/api/v1/posts/999999/comments?per_page=0", "/api/v1/users/nobody/posts?per_page=0"} {
		t.Run(path, func(t *testing.T) {
			if resp := h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice}); resp.Status != http.StatusNotFound {
				t.Errorf("%s: status %d, want 404: %s", path, resp.Status, resp.Body)
			}
		})
	}
}

// TestHygieneIDRange holds every operation with an {id} to the bounds of
// the Id parameter: its maximum names nothing (404, never 400 or 500) and
// one above it is out of range (400 invalid_parameter naming id). A write
// sends its documented request example, so only the id can be at fault.
func TestHygieneIDRange(t *testing.T) {
	h := newHygieneWith(t, apitest.Options{RateWindow: time.Millisecond})
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if m := spec.Components.Parameters["Id"].Value.Schema.Value.Max; m == nil || *m != 1<<53-1 {
		t.Fatalf("the Id parameter's maximum is not 2^53-1")
	}
	n := 0
	for _, o := range specOps(t, "") {
		if !o.declares("id", openapi3.ParameterInPath) {
			continue
		}
		n++
		req := func(id string) apitest.Request {
			r := apitest.Request{Method: o.method, Path: "/api/v1" + strings.Replace(o.path, "{id}", id, 1), Token: h.alice}
			if o.op.RequestBody != nil {
				b, err := json.Marshal(o.op.RequestBody.Value.Content["application/json"].Example)
				if err != nil {
					t.Fatal(err)
				}
				r.Body = string(b)
			}
			return r
		}
		max := strconv.FormatInt(1<<53-1, 10)
		if resp := h.env.Do(t, req(max)); resp.Status != http.StatusNotFound {
			t.Errorf("%s %s with id %s: status %d, want 404: %s", o.method, o.path, max, resp.Status, resp.Body)
		}
		over := strconv.FormatInt(1<<53, 10)
		wantParam(t, o.method+" "+o.path+" with id "+over, h.env.Do(t, req(over)), "id")
	}
	if n < 5 {
		t.Fatalf("only %d operations with an id", n)
	}
}

// TestHygieneProblemBounded sends what a problem body would echo beyond the
// contract's bounds of Problem (a long path, a long parameter name, more
// unknown parameters than errors[] holds): the body is cut to them (every
// response is validated against the spec) and still names the fault.
func TestHygieneProblemBounded(t *testing.T) {
	h := newHygiene(t)
	long := strings.Repeat("p", 3000)
	q := url.Values{long: {"1"}}
	for i := range 150 {
		q.Set(fmt.Sprintf("x%d", i), "1")
	}
	resp := h.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/posts/" + strings.Repeat("9", 3000) + "?" + q.Encode(), Token: h.alice})
	if resp.Status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %.300s", resp.Status, resp.Body)
	}
	p := resp.Problem(t)
	if len(p.Errors) != 100 || utf8.RuneCountInString(p.Instance) != 2048 || !strings.HasSuffix(p.Instance, "…") {
		t.Errorf("%d errors, instance of %d characters; want 100 and 2048 ending in …", len(p.Errors), utf8.RuneCountInString(p.Instance))
	}
	for _, e := range p.Errors {
		if e.Parameter != nil && strings.HasPrefix(*e.Parameter, "ppp") && utf8.RuneCountInString(*e.Parameter) != 1000 {
			t.Errorf("parameter of %d characters, want 1000", utf8.RuneCountInString(*e.Parameter))
		}
	}
}

func TestHygieneRedirectsToIndex(t *testing.T) {
	h := newHygiene(t)
	for _, tc := range []struct{ method, path, token, to string }{
		{"GET", "/api/v1", h.alice, apitest.PublicURL + "/api/v1/"},
		{"HEAD", "/api/v1", h.alice, apitest.PublicURL + "/api/v1/"},
		{"GET", "/api/v1", "", apitest.PublicURL + "/api/v1/"}, // before authentication
		{"GET", "/api/v1?x=1", "", apitest.PublicURL + "/api/v1/?x=1"},
	} {
		t.Run(apitest.Request{Method: tc.method, Path: tc.path, Token: tc.token}.Name(), func(t *testing.T) {
			resp := h.env.Send(apitest.Request{Method: tc.method, Path: tc.path, Token: tc.token})
			if resp.Status != http.StatusMovedPermanently || resp.Header.Get("Location") != tc.to || len(resp.Body) != 0 {
				t.Errorf("%s %s: %d Location %q body %q, want 301 to %s", tc.method, tc.path, resp.Status, resp.Header.Get("Location"), resp.Body, tc.to)
			}
		})
	}
	// The target is the index.
	if resp := h.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/", Token: h.alice}); resp.Status != http.StatusOK {
		t.Errorf("GET /api/v1/: %d", resp.Status)
	}
}

func TestHygieneHeadOutsideTheAPI(t *testing.T) {
	env := apitest.New(t)
	for _, path := range []string{"/healthz", "/readyz", "/api/v1/openapi.yaml", "/api/v1/openapi.json", "/docs", "/docs/init.js"} {
		t.Run(path, func(t *testing.T) {
			get := env.Send(apitest.Request{Method: "GET", Path: path})
			head := env.Send(apitest.Request{Method: "HEAD", Path: path})
			if get.Status != http.StatusOK || head.Status != http.StatusOK || len(head.Body) != 0 {
				t.Errorf("%s: GET %d, HEAD %d with %d bytes of body, want 200 both and no body", path, get.Status, head.Status, len(head.Body))
			}
			if head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
				t.Errorf("%s: HEAD Content-Type %q, GET %q", path, head.Header.Get("Content-Type"), get.Header.Get("Content-Type"))
			}
		})
	}
}
