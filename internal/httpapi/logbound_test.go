package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestLogLinesAreBounded sends requests whose method and path are 12 KB
// each, with and without a token, and a path of escaped control bytes (the
// log formats write each as several characters): every line logged stays
// under 2 KB, with the method and path cut (and marked "…") in it.
func TestLogLinesAreBounded(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	method := strings.Repeat("M", 12<<10)
	path := "/api/v1/" + strings.Repeat("p", 12<<10)
	for _, req := range []apitest.Request{
		{Method: method, Path: path},
		{Method: method, Path: path, Token: tok},
		{Method: "GET", Path: path, Token: tok},
		{Method: method, Path: "/" + strings.Repeat("q", 12<<10)},
		{Method: "GET", Path: "/api/v1/" + strings.Repeat("%01%FF", 4<<10)},
	} {
		t.Run(req.Name(), func(t *testing.T) {
			env.Logs.Reset()
			resp := env.Send(req)
			if resp.Status < 400 || resp.Status >= 500 {
				t.Errorf("%.20s %.40s: status %d, want a 4xx", req.Method, req.Path, resp.Status)
			}
			sc := bufio.NewScanner(bytes.NewReader(env.Logs.Bytes()))
			sc.Buffer(nil, 1<<20)
			lines := 0
			for sc.Scan() {
				lines++
				line := sc.Bytes()
				if len(line) >= 2<<10 {
					t.Errorf("%.20s %.40s: a %d-byte log line: %.300s", req.Method, req.Path, len(line), line)
				}
				var l map[string]any
				if err := json.Unmarshal(line, &l); err != nil {
					t.Fatalf("log line %.300s: %v", line, err)
				}
				if l["msg"] != "request" {
					continue
				}
				for field, max := range map[string]int{"method": 16, "path": 256} {
					v, _ := l[field].(string)
					if want := field == "path" || req.Method == method; want != strings.HasSuffix(v, "…") {
						t.Errorf("%s %.40q: cut mark = %v, want %v", field, v, !want, want)
					}
					// What is left of the value, in bytes as received: the JSON
					// log writes each invalid byte as U+FFFD (3 bytes decoded).
					v = strings.TrimSuffix(v, "…")
					if n := len(v) - 2*strings.Count(v, "\uFFFD"); n > max || !utf8.ValidString(v) {
						t.Errorf("%s: %d bytes logged, want at most %d", field, n, max)
					}
				}
			}
			if lines == 0 {
				t.Errorf("%.20s %.40s: nothing logged", req.Method, req.Path)
			}
		})
	}
}

// TestClientRequestIDIsShortAndSafe: a client's X-Request-Id is used (in the
// answer and the log) only when it is 1 to 64 characters of A-Z a-z 0-9
// . _ : -; any other gets an id of the server's own.
func TestClientRequestIDIsShortAndSafe(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for in, keep := range map[string]bool{
		"abc-123":                 true,
		"trace.ID_01:span-2":      true,
		strings.Repeat("a", 64):   true,
		strings.Repeat("a", 65):   false,
		strings.Repeat("a", 4096): false,
		"a b":                     false,
		"a\"b":                    false,
		"a%0Ab":                   false,
		"ünïcode":                 false,
	} {
		t.Run(fmt.Sprintf("%.16q (%d bytes)", in, len(in)), func(t *testing.T) {
			env.Logs.Reset()
			resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Header: http.Header{"X-Request-Id": {in}}})
			got := resp.Header.Get("X-Request-Id")
			if (got == in) != keep || got == "" || len(got) > 64 {
				t.Errorf("X-Request-Id %.70q -> %q, want kept = %v", in, got, keep)
			}
			if !keep && strings.Contains(env.Logs.String(), in) {
				t.Errorf("X-Request-Id %.70q reached the log", in)
			}
		})
	}
}
