package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
)

// replicaReads are the operations whose reads may run on a read replica
// (pg.Router, DATABASE_REPLICA_URLS): pages and items every member may read
// a little late, as long as their own writes show (read-your-writes). The
// rest stays on the primary: every write, and everything a write runs in
// its transaction; the token check, the rate limit and idempotency (the
// edge's own, before this); a member's own settings, blocks and mutes
// (getMe, listBlocks, listMutes) and a conversation's messages, which a
// member reads right after changing them; and the probes that answer 404 for a
// hidden resource. docs/deployment.md lists them for operators.
var replicaReads = map[string]bool{
	"listFeed":          true, // home timeline and discover
	"getPost":           true,
	"listPostComments":  true,
	"getUser":           true, // profiles
	"listUserPosts":     true, // a member's posts
	"listNotifications": true,
	"listConversations": true,
	"listListings":      true, // market
	"listJobs":          true,
	"searchAll":         true,
}

// routeReads sends the reads of a lag-tolerant GET to a replica, when one
// is well and has replayed the member's last write: the decision, with the
// token's check, is one statement on the primary (pg.Router.Route), so a
// revoked token is refused at once whatever serves the read. It returns the
// request to go on with.
func (e *edge) routeReads(c echo.Context, m routeMatch, p auth.Principal) {
	r := c.Request()
	if !e.router.Replicas() || m.op == nil || !replicaReads[m.op.id] ||
		(r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return
	}
	ctx, counts := e.router.Route(r.Context(), p.MemberID, auth.GuardArg(r.Context()))
	if counts {
		auth.Confirm(ctx)
	}
	c.SetRequest(r.WithContext(ctx))
}

// markWrites records, before a write's answer is sent, that its member
// wrote (pg.Router.MarkWrite): the member's next reads, on any instance,
// go only where the write is. An answer that refused the request (4xx)
// wrote nothing and records nothing.
func (e *edge) markWrites(c echo.Context, p auth.Principal) {
	r := c.Request()
	if !e.router.Replicas() || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return
	}
	ctx := r.Context()
	res := c.Response()
	res.Before(func() {
		if res.Status >= 400 && res.Status < 500 {
			return
		}
		if err := e.router.MarkWrite(ctx, p.MemberID); err != nil && e.log != nil {
			e.log.Warn("write not marked for read-your-writes: the member may read a replica without it until the replicas catch up",
				slog.Int64("member_id", p.MemberID), slog.String("error", err.Error()))
		}
	})
}

// replicaStates is /readyz's "replicas": each replica's state ("ok",
// "lagging: ...", "unreachable: ..."), by name.
func replicaStates(rt *pg.Router) map[string]string {
	out := map[string]string{}
	for _, s := range rt.States() {
		v := s.State
		if s.Detail != "" {
			v += ": " + s.Detail
		}
		out[s.Name] = v
	}
	return out
}
