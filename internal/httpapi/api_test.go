package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

func TestAuthMatrix(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	write := env.Token(t, "alice", auth.ScopeWrite)
	// The last character is part of the checksum: change it (to 'x', or 'y'
	// when it already is 'x', one token in 62).
	badChecksum := write[:len(write)-1] + "x"
	if strings.HasSuffix(write, "x") {
		badChecksum = write[:len(write)-1] + "y"
	}
	read := env.Token(t, "alice", auth.ScopeRead)

	store := auth.NewStore(env.DB, nil)
	past := time.Now().Add(-time.Hour)
	_, expired, err := store.Create(context.Background(), auth.NewToken{Handle: "alice", Scope: auth.ScopeRead, ExpiresAt: &past})
	if err != nil {
		t.Fatal(err)
	}
	rt, revoked, err := store.Create(context.Background(), auth.NewToken{Handle: "alice", Scope: auth.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Revoke(context.Background(), rt.ID); err != nil {
		t.Fatal(err)
	}
	unknown, _ := auth.Generate(auth.ScopeWrite)

	const invalid = `Bearer realm="api", error="invalid_token"`
	tests := []struct {
		name    string
		method  string
		path    string
		header  string // raw Authorization header; "" means none
		status  int
		code    string
		wwwAuth string
	}{
		{"no token", "GET", "/api/v1/me", "", 401, "unauthenticated", `Bearer realm="api"`},
		{"no token on index", "GET", "/api/v1/", "", 401, "unauthenticated", `Bearer realm="api"`},
		{"no token on write", "POST", "/api/v1/posts", "", 401, "unauthenticated", `Bearer realm="api"`},
		{"basic scheme", "GET", "/api/v1/me", "Basic YWxpY2U6c2VjcmV0", 401, "invalid_token", invalid},
		{"bearer without token", "GET", "/api/v1/me", "Bearer ", 401, "invalid_token", invalid},
		{"two spaces", "GET", "/api/v1/me", "Bearer  " + write, 401, "invalid_token", invalid},
		{"malformed token", "GET", "/api/v1/me", "Bearer not-a-token", 401, "invalid_token", invalid},
		{"bad checksum", "GET", "/api/v1/me", "Bearer " + badChecksum, 401, "invalid_token", invalid},
		{"unknown token", "GET", "/api/v1/me", "Bearer " + unknown, 401, "invalid_token", invalid},
		{"revoked token", "GET", "/api/v1/me", "Bearer " + revoked, 401, "token_revoked", invalid},
		{"expired token", "GET", "/api/v1/me", "Bearer " + expired, 401, "token_expired", invalid},
		{"read token on write", "POST", "/api/v1/posts", "Bearer " + read, 403, "insufficient_scope", `Bearer error="insufficient_scope", scope="write"`},
		{"read token on delete", "DELETE", "/api/v1/posts/1", "Bearer " + read, 403, "insufficient_scope", `Bearer error="insufficient_scope", scope="write"`},
		{"lower-case scheme", "GET", "/api/v1/me", "bearer " + read, 200, "", ""},
		{"read token reads", "GET", "/api/v1/me", "Bearer " + read, 200, "", ""},
		{"write token reads", "GET", "/api/v1/me", "Bearer " + write, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			resp := env.Do(t, apitest.Request{Method: tt.method, Path: tt.path, Header: h})
			if resp.Status != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.Status, tt.status, resp.Body)
			}
			if tt.code == "" {
				return
			}
			if got := resp.Problem(t).Code; got != tt.code {
				t.Errorf("code = %q, want %q", got, tt.code)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.wwwAuth {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wwwAuth)
			}
		})
	}

	t.Run("token in query string is ignored", func(t *testing.T) {
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me?access_token=" + write})
		if resp.Status != 401 || resp.Problem(t).Code != "unauthenticated" {
			t.Fatalf("got %d %s, want 401 unauthenticated", resp.Status, resp.Body)
		}
		if strings.Contains(string(resp.Body), write) {
			t.Errorf("response echoes the token: %s", resp.Body)
		}
	})
	t.Run("two Authorization headers", func(t *testing.T) {
		h := http.Header{"Authorization": {"Bearer " + read, "Bearer " + write}}
		resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Header: h, Body: `{"body":"x"}`})
		if resp.Status != 401 {
			t.Fatalf("status = %d, want 401", resp.Status)
		}
	})
	t.Run("401 bodies differ only in code and detail", func(t *testing.T) {
		norm := func(tok string) apitest.Problem {
			p := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}).Problem(t)
			p.Code, p.Detail, p.RequestID, p.Type, p.Title = "", "", "", "", ""
			return p
		}
		a, b, c := norm(unknown), norm(revoked), norm(expired)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("unknown vs revoked (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(a, c); diff != "" {
			t.Errorf("unknown vs expired (-want +got):\n%s", diff)
		}
	})
	t.Run("tokens are never logged", func(t *testing.T) {
		for name, tok := range map[string]string{"write": write, "read": read, "revoked": revoked, "expired": expired, "unknown": unknown} {
			t.Run(name, func(t *testing.T) {
				if strings.Contains(env.Logs.String(), tok[4:]) {
					t.Errorf("server log contains a token")
				}
			})
		}
	})
}

func TestTokensHashedAtRest(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM api_tokens WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%' OR display_prefix = $2`, tok[4:20], tok); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("found %d token rows holding the secret", n)
	}
	if err := env.DB.Get(&n, `SELECT count(*) FROM api_tokens WHERE token_hash = sha256($1::bytea)`, tok); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("rows with token_hash = sha256(token): %d, want 1", n)
	}
}

func TestIndexListsEveryOperation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/", Token: tok})
	if resp.Status != 200 {
		t.Fatalf("status = %d: %s", resp.Status, resp.Body)
	}
	var got gen.IndexResponse
	resp.JSON(t, &got)

	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	var want, have []string
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			want = append(want, method+" /api/v1"+path+" "+op.OperationID)
		}
	}
	for _, e := range got.Data.Endpoints {
		have = append(have, string(e.Method)+" "+e.Path+" "+e.OperationID)
		if e.Method == "GET" && (e.Scope != "read" || e.RateLimitPolicy != "read") {
			t.Errorf("%s %s: scope %s policy %s, want read/read", e.Method, e.Path, e.Scope, e.RateLimitPolicy)
		}
		if e.Method != "GET" && (e.Scope != "write" || e.RateLimitPolicy != "write") {
			t.Errorf("%s %s: scope %s policy %s, want write/write", e.Method, e.Path, e.Scope, e.RateLimitPolicy)
		}
	}
	sort.Strings(want)
	sort.Strings(have)
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("index endpoints (-spec +index):\n%s", diff)
	}
	if len(have) < 20 {
		t.Errorf("index lists %d operations, want at least the 20 of v1", len(have))
	}
	if got.Data.Version != spec.Info.Version {
		t.Errorf("version = %q, want %q", got.Data.Version, spec.Info.Version)
	}
	if got.Data.Limits.PerPageMax != 50 || got.Data.Limits.PerPageDefault != 20 {
		t.Errorf("per_page limits = %d/%d, want 20/50", got.Data.Limits.PerPageDefault, got.Data.Limits.PerPageMax)
	}
	if !slices.Equal(got.Data.Enums.ReactionTypes, []string{"like", "love", "haha", "wow", "sad", "angry"}) {
		t.Errorf("reaction types = %v", got.Data.Enums.ReactionTypes)
	}
}

func TestMe(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	id := env.Member(t, "alice")
	env.Member(t, "bob")
	for _, scope := range []auth.Scope{auth.ScopeRead, auth.ScopeWrite} {
		t.Run(string(scope), func(t *testing.T) {
			tok := env.Token(t, "alice", scope)
			resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
			if resp.Status != 200 {
				t.Fatalf("status = %d: %s", resp.Status, resp.Body)
			}
			var got gen.MeResponse
			resp.JSON(t, &got)
			if got.Data.ID != id || got.Data.Handle != "alice" || string(got.Data.Token.Scope) != string(scope) {
				t.Errorf("me = id %d @%s scope %s, want id %d @alice scope %s", got.Data.ID, got.Data.Handle, got.Data.Token.Scope, id, scope)
			}
			if got.Data.URL != apitest.PublicURL+"/@alice" {
				t.Errorf("url = %q", got.Data.URL)
			}
			if !got.Data.Viewer.IsSelf {
				t.Error("viewer.is_self = false")
			}
			for _, s := range []string{`"created_at":"`, `"expires_at":null`} {
				if !strings.Contains(string(resp.Body), s) {
					t.Errorf("body lacks %s: %s", s, resp.Body)
				}
			}
			if strings.Contains(string(resp.Body), `Z"`) {
				t.Errorf("a timestamp ends in Z: %s", resp.Body)
			}
		})
	}
}

func TestEdgeErrors(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	tests := []struct {
		name   string
		req    apitest.Request
		status int
		code   string
	}{
		{"unknown path", apitest.Request{Method: "GET", Path: "/api/v1/nope"}, 404, "not_found"},
		{"wrong method", apitest.Request{Method: "PUT", Path: "/api/v1/me"}, 405, "method_not_allowed"},
		{"unknown query parameter", apitest.Request{Method: "GET", Path: "/api/v1/me?debug=1"}, 400, "invalid_parameter"},
		{"per_page too large", apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=51"}, 400, "invalid_parameter"},
		{"per_page zero", apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=0"}, 400, "invalid_parameter"},
		{"per_page not a number", apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=ten"}, 400, "invalid_parameter"},
		{"per_page twice", apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=1&per_page=50"}, 400, "invalid_parameter"},
		{"bad tab", apitest.Request{Method: "GET", Path: "/api/v1/feed?tab=all"}, 400, "invalid_parameter"},
		{"id not a number", apitest.Request{Method: "GET", Path: "/api/v1/posts/abc"}, 400, "invalid_parameter"},
		{"id zero", apitest.Request{Method: "GET", Path: "/api/v1/posts/0"}, 400, "invalid_parameter"},
		{"id too large", apitest.Request{Method: "GET", Path: "/api/v1/posts/9223372036854775808"}, 400, "invalid_parameter"},
		{"malformed JSON", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":`}, 400, "invalid_json"},
		{"data after the JSON value", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x"}0`}, 400, "invalid_json"},
		{"a second JSON value", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x"} {"body":"y"}`}, 400, "invalid_json"},
		{"missing body", apitest.Request{Method: "POST", Path: "/api/v1/posts"}, 400, "invalid_json"},
		{"empty post body", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":""}`}, 422, "validation_failed"},
		{"unknown body field", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x","author_id":3}`}, 422, "validation_failed"},
		{"case-variant body field", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x","VISIBILITY":"private"}`}, 422, "validation_failed"},
		{"bad enum", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x","visibility":"friends"}`}, 422, "validation_failed"},
		{"text/plain body", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x"}`, Header: http.Header{"Content-Type": {"text/plain"}}}, 415, "unsupported_media_type"},
		{"too large body", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"` + strings.Repeat("a", 70<<10) + `"}`}, 413, "payload_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Token = tok
			resp := env.Do(t, tt.req)
			if resp.Status != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.Status, tt.status, resp.Body)
			}
			p := resp.Problem(t)
			if p.Code != tt.code {
				t.Errorf("code = %q, want %q (%s)", p.Code, tt.code, resp.Body)
			}
			if p.Instance != strings.SplitN(tt.req.Path, "?", 2)[0] {
				t.Errorf("instance = %q", p.Instance)
			}
			if p.RequestID == "" || p.RequestID != resp.Header.Get("X-Request-Id") {
				t.Errorf("request_id = %q, header %q", p.RequestID, resp.Header.Get("X-Request-Id"))
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q, want GET, HEAD", resp.Header.Get("Allow"))
			}
		})
	}
}

func TestFieldPointers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok,
		Body: `{"body":"","visibility":"friends","secret":"hunter2"}`})
	if resp.Status != 422 {
		t.Fatalf("status = %d: %s", resp.Status, resp.Body)
	}
	if strings.Contains(string(resp.Body), "hunter2") || strings.Contains(string(resp.Body), "friends") {
		t.Errorf("problem echoes request values: %s", resp.Body)
	}
	var ptrs []string
	for _, e := range resp.Problem(t).Errors {
		if e.Pointer != nil {
			ptrs = append(ptrs, *e.Pointer)
		}
	}
	sort.Strings(ptrs)
	if diff := cmp.Diff([]string{"/body", "/secret", "/visibility"}, ptrs); diff != "" {
		t.Errorf("pointers (-want +got):\n%s", diff)
	}
}

func TestAnyHostName(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	for _, host := range []string{"api-a.test", "API-B.TEST:8443", "127.0.0.1:9", "evil.example"} {
		t.Run(host, func(t *testing.T) {
			h := http.Header{"X-Forwarded-Host": {"evil.example"}, "X-Forwarded-Proto": {"http"}}
			req := apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok, Header: h}
			resp := env.DoHost(t, req, host)
			if resp.Status != 200 {
				t.Fatalf("Host %s: status %d", host, resp.Status)
			}
			if !strings.Contains(string(resp.Body), `"url":"`+apitest.PublicURL+`/@alice"`) {
				t.Errorf("Host %s: url not from PUBLIC_URL: %s", host, resp.Body)
			}
		})
	}
}

func TestCheckRejectsWrongResponses(t *testing.T) {
	t.Parallel()
	req := apitest.Request{Method: "GET", Path: "/api/v1/me"}
	h := http.Header{"X-Request-Id": {"x"}, "Content-Type": {"application/json"}}
	good := `{"data":{"id":1,"handle":"alice","name":"A","avatar":null,"verified":false,"url":"https://x.example/@alice","bio":null,"created_at":"2026-01-01T00:00:00+00:00","counts":{"followers":0,"following":0,"posts":0},"viewer":{"is_self":true,"following":false,"followed_by":false,"blocking":false,"muting":false},"settings":{"default_visibility":"public"},"unread":{"notifications":0,"conversations":0},"token":{"scope":"read","created_at":"2026-01-01T00:00:00+00:00","expires_at":null},"rate_limits":{"read":{"limit":120,"remaining":120,"reset_at":"2026-01-01T00:00:00+00:00"},"write":{"limit":60,"remaining":60,"reset_at":"2026-01-01T00:00:00+00:00"}}}}`
	if err := apitest.Check(req, &apitest.Response{Status: 200, Header: h, Body: []byte(good)}); err != nil {
		t.Fatalf("Check(good) = %v", err)
	}
	bad := map[string]*apitest.Response{
		"undocumented status": {Status: 418, Header: h, Body: []byte(good)},
		"Z timestamp":         {Status: 200, Header: h, Body: []byte(strings.Replace(good, "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00Z", 1))},
		"missing field":       {Status: 200, Header: h, Body: []byte(strings.Replace(good, `"bio":null,`, "", 1))},
		"null array/object":   {Status: 200, Header: h, Body: []byte(strings.Replace(good, `"counts":{"followers":0,"following":0,"posts":0}`, `"counts":null`, 1))},
		"relative url":        {Status: 200, Header: h, Body: []byte(strings.Replace(good, "https://x.example/@alice", "/@alice", 1))},
		"no request id":       {Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(good)},
		"undeclared header":   {Status: 200, Header: with(h, "X-Powered-By", "echo"), Body: []byte(good)},
		"undeclared CORS":     {Status: 200, Header: with(h, "Access-Control-Allow-Origin", "*"), Body: []byte(good)},
	}
	for name, resp := range bad {
		t.Run(name, func(t *testing.T) {
			if err := apitest.Check(req, resp); err == nil {
				t.Errorf("Check(%s) = nil, want an error", name)
			}
		})
	}
	// Headers an answer must carry: the rate-limit headers once a token
	// authenticated, Allow on a 405, a required header (Location on a 201).
	problem := http.Header{"X-Request-Id": {"x"}, "Content-Type": {"application/problem+json"}}
	notAllowed := `{"type":"https://x.example/problems/method_not_allowed","title":"Method not allowed","status":405,"detail":"d","instance":"/api/v1/me","code":"method_not_allowed","request_id":"x","errors":[]}`
	due := map[string]struct {
		req  apitest.Request
		resp *apitest.Response
	}{
		"authenticated without rate-limit headers": {apitest.Request{Method: "GET", Path: "/api/v1/me", Token: "t"}, &apitest.Response{Status: 200, Header: h, Body: []byte(good)}},
		"405 without Allow":                        {apitest.Request{Method: "PUT", Path: "/api/v1/me"}, &apitest.Response{Status: 405, Header: problem, Body: []byte(notAllowed)}},
		"201 without Location":                     {apitest.Request{Method: "POST", Path: "/api/v1/posts"}, &apitest.Response{Status: 201, Header: h, Body: []byte(`{}`)}},
	}
	for name, tc := range due {
		t.Run(name, func(t *testing.T) {
			err := apitest.Check(tc.req, tc.resp)
			if err == nil || !strings.Contains(err.Error(), "lacks") {
				t.Errorf("Check(%s) = %v, want an error about a missing header", name, err)
			}
		})
	}
	// CORS headers pass when the request named an Origin.
	cors := req
	cors.Header = http.Header{"Origin": {"https://app.example"}}
	if err := apitest.Check(cors, &apitest.Response{Status: 200, Header: with(h, "Access-Control-Allow-Origin", "*"), Body: []byte(good)}); err != nil {
		t.Errorf("Check(CORS answer to an Origin) = %v", err)
	}
}

// with is h and one more header.
func with(h http.Header, name, value string) http.Header {
	c := h.Clone()
	c.Set(name, value)
	return c
}

func TestHealthChecks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			resp := env.Send(apitest.Request{Method: "GET", Path: path})
			if resp.Status != 200 {
				t.Errorf("%s: status %d: %s", path, resp.Status, resp.Body)
			}
		})
	}
	env.DB.Close() // the database goes away: not ready, still alive
	if resp := env.Send(apitest.Request{Method: "GET", Path: "/readyz"}); resp.Status != 503 || !strings.Contains(string(resp.Body), `"ready":false`) {
		t.Errorf("/readyz without a database: %d %s", resp.Status, resp.Body)
	}
	if resp := env.Send(apitest.Request{Method: "GET", Path: "/healthz"}); resp.Status != 200 {
		t.Errorf("/healthz without a database: %d", resp.Status)
	}
}

func TestSpecServed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	resp := env.Send(apitest.Request{Method: "GET", Path: "/api/v1/openapi.yaml"})
	if resp.Status != 200 || !strings.HasPrefix(string(resp.Body), "openapi: 3.0.3") {
		t.Errorf("openapi.yaml: %d %.40s", resp.Status, resp.Body)
	}
	resp = env.Send(apitest.Request{Method: "GET", Path: "/api/v1/openapi.json"})
	if resp.Status != 200 || !strings.Contains(string(resp.Body), `"operationId":"getIndex"`) {
		t.Errorf("openapi.json: %d %.80s", resp.Status, resp.Body)
	}
}

// TestHostileInput: inputs that would otherwise reach PostgreSQL or the
// decoder in a broken state answer 4xx problems, never a 500.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	tests := []struct {
		name   string
		req    apitest.Request
		status int
	}{
		{"NUL in body", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"a\u0000b"}`}, 422},
		{"raw invalid UTF-8", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: "{\"body\":\"a\xff\xfeb\"}"}, 400},
		{"NUL in query", apitest.Request{Method: "GET", Path: "/api/v1/search?q=a%00b"}, 400},
		{"invalid UTF-8 in query", apitest.Request{Method: "GET", Path: "/api/v1/search?q=%ff%fe"}, 400},
		{"NUL in handle", apitest.Request{Method: "GET", Path: "/api/v1/users/bob%00"}, 400},
		{"deep nesting", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: strings.Repeat("[", 20000)}, 400},
		{"wrong JSON type", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":42}`}, 422},
		{"JSON array body", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `["body"]`}, 422},
		{"SQL metacharacters are text", apitest.Request{Method: "GET", Path: "/api/v1/users/x'%3B--"}, 400},
		{"NUL in link", apitest.Request{Method: "POST", Path: "/api/v1/posts", Body: `{"body":"x","link":"https://a.example/\u0000"}`}, 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Token = tok
			resp := env.Do(t, tt.req)
			if resp.Status != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if strings.Contains(string(resp.Body), "pq:") || strings.Contains(string(resp.Body), "goroutine") {
				t.Errorf("internals in body: %s", resp.Body)
			}
		})
	}
}
