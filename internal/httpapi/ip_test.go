package httpapi

import (
	"net"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestClientAddress(t *testing.T) {
	t.Parallel()
	_, proxies, _ := net.ParseCIDR("192.0.2.0/24")
	tests := []struct {
		name    string
		trusted []*net.IPNet
		remote  string
		want    string
	}{
		{"no proxies: the connection", nil, "192.0.2.1:1234", "192.0.2.1"},
		{"trusted proxy: its X-Forwarded-For", []*net.IPNet{proxies}, "192.0.2.1:1234", "203.0.113.9"},
		{"untrusted peer: the connection", []*net.IPNet{proxies}, "198.51.100.7:1234", "198.51.100.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := echo.New()
			e.IPExtractor = ipExtractor(tt.trusted)
			req := httptest.NewRequest("GET", "/", nil)
			req.RemoteAddr = tt.remote
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			req.Header.Set("X-Real-IP", "203.0.113.10")
			if got := e.NewContext(req, httptest.NewRecorder()).RealIP(); got != tt.want {
				t.Errorf("%s: RealIP() = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
}
