package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Toxiproxy (pinned in tools/toxiproxy/go.mod) sits between the server and
// PostgreSQL for the network faults: latency and black hole.

var (
	toxiOnce sync.Once
	toxiBin  string
	toxiErr  error
)

// toxiproxyBinary builds tools/toxiproxy/bin/toxiproxy-server once (kept
// between runs, like tools/go/bin/oasdiff).
func toxiproxyBinary(t testing.TB) string {
	t.Helper()
	toxiOnce.Do(func() {
		dir := filepath.Join(repoRoot(), "tools", "toxiproxy")
		toxiBin = filepath.Join(dir, "bin", "toxiproxy-server")
		if _, err := os.Stat(toxiBin); err == nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", "bin/toxiproxy-server", "github.com/Shopify/toxiproxy/v2/cmd/server")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			toxiErr = fmt.Errorf("build toxiproxy: %v\n%s", err, out)
		}
	})
	if toxiErr != nil {
		t.Fatal(toxiErr)
	}
	return toxiBin
}

// proxy is one Toxiproxy server with one proxy, "pg", from listen to upstream.
type proxy struct {
	t      testing.TB
	api    string
	listen int
}

func newProxy(t testing.TB, upstreamPort int) *proxy {
	t.Helper()
	apiPort := freePort(t)
	cmd := exec.Command(toxiproxyBinary(t), "-host", "127.0.0.1", "-port", fmt.Sprint(apiPort))
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &proxy{t: t, api: fmt.Sprintf("http://127.0.0.1:%d", apiPort), listen: freePort(t)}
	for i := 0; ; i++ {
		if resp, err := http.Get(p.api + "/version"); err == nil {
			resp.Body.Close()
			break
		}
		if i == 200 {
			t.Fatalf("toxiproxy did not start:\n%s", logs.String())
		}
		time.Sleep(25 * time.Millisecond)
	}
	p.call("POST", "/proxies", map[string]any{
		"name": "pg", "enabled": true,
		"listen": fmt.Sprintf("127.0.0.1:%d", p.listen), "upstream": fmt.Sprintf("127.0.0.1:%d", upstreamPort),
	})
	return p
}

// URL is the database URL through the proxy.
func (p *proxy) URL(c *cluster, name, app string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&application_name=%s", p.listen, name, app)
}

// add adds a toxic to both directions: typ latency (attrs latency=ms) or
// timeout (timeout=0: a black hole).
func (p *proxy) add(name, typ string, attrs map[string]any) {
	for _, stream := range []string{"upstream", "downstream"} {
		p.call("POST", "/proxies/pg/toxics", map[string]any{"name": name + "_" + stream, "type": typ, "stream": stream, "attributes": attrs})
	}
}

func (p *proxy) remove(name string) {
	for _, stream := range []string{"upstream", "downstream"} {
		p.call("DELETE", "/proxies/pg/toxics/"+name+"_"+stream, nil)
	}
}

func (p *proxy) call(method, path string, body any) {
	p.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.api+path, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("toxiproxy %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		p.t.Fatalf("toxiproxy %s %s: %d %s", method, path, resp.StatusCode, b)
	}
}
