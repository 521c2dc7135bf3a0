package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/stream"
)

// streamRoute is the event stream's path as Echo routes it.
const streamRoute = BasePath + "/stream"

// streamOperationID is its operation in openapi.yaml.
const streamOperationID = "getStream"

// streamOperation satisfies the strict interface's GetStream. The route
// is served by serveStream instead, which writes as events happen.
type streamOperation struct{}

// GetStream implements gen.StrictServerInterface; never routed to.
func (streamOperation) GetStream(context.Context, gen.GetStreamRequestObject) (gen.GetStreamResponseObject, error) {
	return nil, apperr.New(apperr.Internal, "The event stream is served by its own route.")
}

// serveStream serves GET (and HEAD) /stream after the edge's checks:
// authenticated in full, one read spent, parameters validated.
func serveStream(hub *stream.Hub) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		p, ok := auth.FromContext(r.Context())
		if !ok {
			return apperr.New(apperr.Unauthenticated, "Authentication required.")
		}
		_, tok, _ := strings.Cut(r.Header.Get(echo.HeaderAuthorization), " ")
		var after *int64
		v := r.Header.Get("Last-Event-ID")
		if v == "" {
			v = r.URL.Query().Get("last_event_id")
		}
		if v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return apperr.New(apperr.InvalidParameter, "Last-Event-ID must be an event id.")
			}
			after = &n
		}
		// The server's read timeout would end the stream: a stream reads
		// nothing after its request.
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Time{})
		return hub.Serve(r.Context(), c.Response(), stream.Request{Principal: p, Token: tok, After: after, Head: r.Method == http.MethodHead})
	}
}
