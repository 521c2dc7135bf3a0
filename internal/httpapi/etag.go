package httpapi

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/views"
)

// Conditional GET
//
// Every 200 answer to a GET carries an ETag computed from its body: strong
// on single resources, weak (W/) on lists. Two fields change without the
// resource changing and are left out of the hash: counts.views (reading a
// post counts a view) and, on /me, rate_limits (every request spends budget;
// the RateLimit headers carry it). A GET whose If-None-Match matches answers
// 304 with no body.
//
// Whether the answer is 304 is known only once the handler has run, so a
// conditional GET costs the server what any GET costs and spends the read
// budget like any (charged up front by the edge, 429 when it is empty). The
// views a handler counts (views.Pending) count only when a 200 is sent.

// etags tags GET responses.
type etags struct {
	weak map[string]bool // by operationId: lists get weak tags
	// budget: the operations whose 200 data carries rate_limits (/me), the
	// only bodies searched for it.
	budget map[string]bool
}

func newETags(spec *openapi3.T) *etags {
	t := &etags{weak: map[string]bool{}, budget: map[string]bool{}}
	for _, item := range spec.Paths.Map() {
		op := item.Get
		if op == nil {
			continue
		}
		// A list is a 200 body with a meta member (pagination).
		if r := op.Responses.Status(http.StatusOK); r != nil && r.Value != nil {
			if mt := r.Value.Content.Get(echo.MIMEApplicationJSON); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
				_, list := mt.Schema.Value.Properties["meta"]
				t.weak[op.OperationID] = list
				if d := mt.Schema.Value.Properties["data"]; d != nil && hasProperty(d.Value, "rate_limits") {
					t.budget[op.OperationID] = true
				}
			}
		}
	}
	return t
}

// hasProperty reports whether s, or a schema it is allOf, has the property
// name.
func hasProperty(s *openapi3.Schema, name string) bool {
	if s == nil {
		return false
	}
	if _, ok := s.Properties[name]; ok {
		return true
	}
	for _, a := range s.AllOf {
		if hasProperty(a.Value, name) {
			return true
		}
	}
	return false
}

// serve runs next with its response buffered, then settles pending (a
// recalled principal must be confirmed before any answer). A 200 gets an
// ETag; when it matches If-None-Match the answer is 304 without a body. The
// views next found count only when the 200 of a GET (with its body) is sent.
func (t *etags) serve(c echo.Context, next echo.HandlerFunc, opID string, pending *pendingConfirmation) error {
	orig := c.Response()
	buf := buffers.Get().(*bufferWriter)
	defer buf.release()
	c.SetResponse(echo.NewResponse(buf, c.Echo()))
	seen := views.WithPending(c.Request().Context())
	c.SetRequest(c.Request().WithContext(seen))
	err := next(c)
	c.SetResponse(orig)
	if cerr := pending.confirm(); cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	h := orig.Header()
	if buf.status == http.StatusOK {
		tag := entityTag(buf.body.Bytes(), t.weak[opID], t.budget[opID])
		h.Set("ETag", tag)
		if matches(c.Request().Header.Get("If-None-Match"), tag) {
			orig.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if buf.status == http.StatusOK && c.Request().Method == http.MethodGet { // a HEAD sends no body
		seen.Commit()
	}
	for k, v := range buf.header {
		h[k] = v
	}
	if buf.status != http.StatusNoContent {
		// Known now: sent as is instead of chunked.
		h.Set(echo.HeaderContentLength, strconv.Itoa(buf.body.Len()))
	}
	orig.WriteHeader(buf.status)
	_, err = orig.Write(buf.body.Bytes())
	return err
}

// The parts of a body that change without the resource changing are blanked
// before hashing: every "views":<digits> reads "views":0, and /me's
// rate_limits object reads null. Views are blanked by a scan rather than a
// regular expression, as every post in every list has one.
var (
	viewsKey   = []byte(`"views":`)
	zero       = []byte(`0`)
	rateLimits = regexp.MustCompile(`"rate_limits":\{"read":\{[^{}]*\},"write":\{[^{}]*\}\}`)
)

// entityTag hashes body (volatile fields blanked; rate_limits only when
// budget says the body may carry them): "<base64url of the 64-bit xxHash>",
// with W/ for lists. The tag only tells representations apart, so it needs
// no cryptographic hash, and a fast one keeps tagging off the profile.
func entityTag(body []byte, weak, budget bool) string {
	if budget && bytes.Contains(body, []byte(`"rate_limits":`)) {
		body = rateLimits.ReplaceAll(body, []byte(`"rate_limits":null`))
	}
	h := xxhash.New()
	for {
		i := bytes.Index(body, viewsKey)
		if i < 0 {
			_, _ = h.Write(body)
			break
		}
		j := i + len(viewsKey)
		k := j
		for k < len(body) && body[k] >= '0' && body[k] <= '9' {
			k++
		}
		_, _ = h.Write(body[:j])
		if k > j {
			_, _ = h.Write(zero)
		}
		body = body[k:]
	}
	var sum [8]byte
	tag := `"` + base64.RawURLEncoding.EncodeToString(h.Sum(sum[:0])) + `"`
	if weak {
		return "W/" + tag
	}
	return tag
}

// matches applies If-None-Match's weak comparison (RFC 9110 §13.1.2): "*"
// or any listed tag equal to tag, W/ prefixes ignored.
func matches(ifNoneMatch, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// bufferWriter holds a response until serve decides what to send. They are
// pooled (buffers): a feed page is tens of kilobytes.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

var buffers = sync.Pool{New: func() any { return &bufferWriter{header: http.Header{}} }}

// maxPooledBody bounds the buffers kept for reuse, so one huge answer does
// not stay in memory.
const maxPooledBody = 256 << 10

// release empties w and returns it to the pool.
func (w *bufferWriter) release() {
	if w.body.Cap() > maxPooledBody {
		return
	}
	clear(w.header)
	w.status = 0
	w.body.Reset()
	buffers.Put(w)
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
