package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/ratelimit"
)

// specContract is the contract of the generated spec, without probes.
func specContract(t *testing.T) (*openapi3.T, *contract) {
	t.Helper()
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ct, err := newContract(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec, ct
}

// Every operation Echo routes to is the one matching the spec's paths finds:
// match may take the operation from Echo's route. Paths that need
// unescaping, and those Echo has no handler for, are matched against the
// spec, as before.
func TestMatchTakesEchosRoute(t *testing.T) {
	t.Parallel()
	spec, ct := specContract(t)
	e := echo.New()
	noop := func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	gen.RegisterHandlers(e.Group(BasePath, noop), gen.NewStrictHandler(nil, nil))

	fast := 0
	for _, rt := range e.Routes() {
		if !strings.HasPrefix(rt.Path, BasePath) || strings.HasSuffix(rt.Path, "*") || strings.Contains(rt.Method, "_") {
			continue
		}
		for _, value := range []string{"1", "someone", "a.b-c_d"} {
			path := rt.Path
			for {
				i := strings.IndexByte(path, ':')
				if i < 0 {
					break
				}
				j := strings.IndexByte(path[i:], '/')
				if j < 0 {
					j = len(path) - i
				}
				path = path[:i] + value + path[i+j:]
			}
			req := httptest.NewRequest(rt.Method, path, nil)
			c := e.NewContext(req, httptest.NewRecorder())
			e.Router().Find(rt.Method, path, c)
			got, want := ct.match(c), ct.matchSpec(req)
			if got.op == nil || got.op != want.op || got.route.Path != want.route.Path || got.route.Method != want.route.Method {
				t.Fatalf("%s %s: match found %+v, the spec's paths %+v", rt.Method, path, got, want)
			}
			if len(got.params) != len(want.params) {
				t.Fatalf("%s %s: params %v, want %v", rt.Method, path, got.params, want.params)
			}
			for k, v := range want.params {
				if got.params[k] != v {
					t.Fatalf("%s %s: params %v, want %v", rt.Method, path, got.params, want.params)
				}
			}
			if ct.byEcho[rt.Method][c.Path()] != nil {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Fatal("no request took Echo's route")
	}
	if n := len(spec.Paths.Map()); fast < 3*n {
		t.Errorf("%d requests took Echo's route, want at least %d (every operation, three values)", fast, 3*n)
	}

	// Escaped paths, unknown paths and methods: the spec's routes decide.
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, BasePath + "/users/al%69ce", 0},
		{http.MethodGet, BasePath + "/nope", http.StatusNotFound},
		{http.MethodPut, BasePath + "/posts/1", http.StatusMethodNotAllowed},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			c := e.NewContext(req, httptest.NewRecorder())
			e.Router().Find(tc.method, req.URL.Path, c)
			got := ct.match(c)
			if tc.status == 0 {
				if got.err != nil || got.params["handle"] != "alice" {
					t.Errorf("%s %s: %+v, want handle alice", tc.method, tc.path, got)
				}
				return
			}
			if got.err == nil {
				t.Errorf("%s %s matched %+v, want an error", tc.method, tc.path, got)
			}
		})
	}
}

// headers stores the rate-limit headers under the keys Header.Set would.
func TestRateLimitHeadersCanonical(t *testing.T) {
	t.Parallel()
	l := &limits{policy: `"read";q=120;w=60, "write";q=60;w=60`}
	h := http.Header{}
	l.headers(h, ratelimit.Result{Policy: ratelimit.Write, Limit: 60, Remaining: 17, ResetAfter: 2500 * time.Millisecond})
	want := map[string]string{
		"RateLimit-Policy": l.policy, "RateLimit": `"write";r=17;t=3`,
		"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "17",
	}
	for k, v := range want {
		if _, ok := h[http.CanonicalHeaderKey(k)]; !ok || h.Get(k) != v {
			t.Errorf("%s = %q, want %q (stored under %v)", k, h.Get(k), v, h)
		}
	}
	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if now := time.Now().Unix(); err != nil || reset < now+2 || reset > now+4 {
		t.Errorf("X-RateLimit-Reset = %q, want about now + 3 s", h.Get("X-RateLimit-Reset"))
	}
	if len(h) != 5 {
		t.Errorf("%d headers, want 5: %v", len(h), h)
	}
}
