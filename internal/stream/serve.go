package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/notifications"
)

var errShuttingDown = apperr.New(apperr.Unavailable, "The server is shutting down. Reconnect.")

// errSlow ends a stream whose client does not take its events in time.
var errSlow = errors.New("stream: write blocked past the write timeout")

// Request is what Serve needs to know about the request.
type Request struct {
	Principal auth.Principal
	Token     string // re-authenticated every Config.Recheck
	After     *int64 // Last-Event-ID (or last_event_id): resume after it
	Head      bool   // a HEAD: headers only
}

// Serve answers one stream request on w until the client leaves, the
// server shuts down, the token or member stops authenticating, or the
// client is too slow. An error before anything was written is the
// request's answer (429 over the bounds, 503 shutting down or a database
// failure); after that, Serve returns nil.
func (h *Hub) Serve(ctx context.Context, w http.ResponseWriter, r Request) error {
	member := r.Principal.MemberID
	c, leave, err := h.enter(member)
	if err != nil {
		return err
	}
	defer leave()
	last, resumable, err := h.store.open(ctx, member, h.cfg.Window, r.After)
	if err != nil {
		return err
	}
	// Presence outlasts the stream by the window, so that a reconnection
	// within it resumes.
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := h.store.touch(tctx, []int64{member}, h.cfg.Window); err != nil {
			h.log.Warn("stream: presence at close", slog.String("error", err.Error()))
		}
	}()
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no") // proxies that buffer by default (nginx) pass it on
	w.WriteHeader(http.StatusOK)
	if r.Head {
		return nil
	}
	s := &sender{w: w, rc: http.NewResponseController(w), timeout: h.cfg.WriteTimeout}
	s.printf("retry: %d\n\n", retryMillis)
	if !resumable {
		h.m.refetches.Inc()
		s.event("refetch", "", gen.StreamRefetchEvent{Reason: "not_resumable"})
	}
	if err := s.flush(); err != nil {
		h.m.drops.WithLabelValues("slow").Inc()
		return nil
	}
	c.signal() // what was written after last
	heartbeat := time.NewTicker(h.cfg.Heartbeat)
	defer heartbeat.Stop()
	// Each stream's checks fall at its own times, within Recheck of each
	// other: streams opened together (after a restart, say) would
	// otherwise all check at once, every time.
	recheck := time.NewTimer(jittered(h.cfg.Recheck))
	defer recheck.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	wait := minSettleWait
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.closing:
			s.printf("retry: %d\n\n", retryMillis)
			_ = s.flush()
			return nil
		case <-heartbeat.C:
			s.printf(": heartbeat\n\n")
		case <-recheck.C:
			if _, err := h.authn.Authenticate(ctx, r.Token); err != nil {
				if ctx.Err() == nil {
					h.m.drops.WithLabelValues("revoked").Inc()
				}
				return nil
			}
			recheck.Reset(jittered(h.cfg.Recheck))
			continue
		case <-settle.C:
			if h.probe(c) {
				settle.Reset(wait)
				wait = min(2*wait, maxSettleWait)
			}
			continue
		case <-c.poke:
			var first int64
			if last, first, err = h.deliver(ctx, s, member, last); err != nil {
				if errors.Is(err, errSlow) {
					h.m.drops.WithLabelValues("slow").Inc()
				} else if ctx.Err() == nil {
					h.m.drops.WithLabelValues("error").Inc()
					h.log.Warn("stream: read", slog.String("error", err.Error()))
				}
				return nil
			}
			// Events of a transaction whose id is above a running one's are
			// read again once the horizon passes them, which the hub reads
			// at the next NOTIFY, or shortly: the running one may not notify
			// when it ends.
			h.awaitSettled(c, first)
			if first > 0 {
				settle.Reset(wait)
				wait = min(2*wait, maxSettleWait)
			} else {
				settle.Stop()
				wait = minSettleWait
			}
			continue
		}
		if err := s.flush(); err != nil {
			h.m.drops.WithLabelValues("slow").Inc()
			return nil
		}
	}
}

// A stream that read events not yet settled has the horizon read after
// minSettleWait, doubling while they stay unsettled, up to maxSettleWait:
// transactions last milliseconds, and a long one costs a read a second.
const (
	minSettleWait = 5 * time.Millisecond
	maxSettleWait = time.Second
)

// jittered is a random duration in [d*3/4, d].
func jittered(d time.Duration) time.Duration {
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// deliver sends the member's settled events after last, a page at a time,
// and returns the last id it passed (sent, or skipped as no longer
// visible) and the id of the first event it read not yet settled (0:
// none), to read again once the horizon passes it.
func (h *Hub) deliver(ctx context.Context, s *sender, member, last int64) (int64, int64, error) {
	for {
		h.m.reads.Inc()
		rows, err := h.reads.Do(ctx, readKey{member: member, after: last})
		if err != nil {
			return last, 0, err
		}
		n := len(rows)
		settled := rows
		for i, r := range rows {
			if !r.Settled {
				settled = rows[:i]
				break
			}
		}
		if len(settled) > 0 {
			evs, err := h.rend.render(ctx, member, settled)
			if err != nil {
				return last, 0, err
			}
			for _, e := range evs {
				s.event(e.name, strconv.FormatInt(e.seq, 10), e.data)
				h.m.sent.WithLabelValues(e.name).Inc()
			}
			if err := s.flush(); err != nil {
				return last, 0, errSlow
			}
			last = settled[len(settled)-1].Seq
		}
		if len(settled) < n {
			h.m.unsettled.Inc()
			return last, rows[len(settled)].Seq, nil
		}
		if n < pageSize {
			return last, 0, nil
		}
	}
}

// sender writes Server-Sent Events to w; every flush has a deadline.
type sender struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
}

func (s *sender) printf(format string, args ...any) {
	if len(args) == 0 {
		s.buf.WriteString(format)
		return
	}
	fmt.Fprintf(&s.buf, format, args...)
}

// event appends one event: its id (none for ""), name and data, one JSON
// line (JSON never holds a raw newline).
func (s *sender) event(name, id string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	if id != "" {
		s.buf.WriteString("id: " + id + "\n")
	}
	s.buf.WriteString("event: " + name + "\ndata: ")
	s.buf.Write(b)
	s.buf.WriteString("\n\n")
}

// flush writes what is buffered and flushes it to the client, within the
// write timeout.
func (s *sender) flush() error {
	if s.buf.Len() == 0 {
		return nil
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	_, err := s.w.Write(s.buf.Bytes())
	s.buf.Reset()
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		return errSlow
	}
	return nil
}

// event is one rendered event.
type event struct {
	seq  int64
	name string
	data any
}

// renderer renders rows as the lists show their subjects, and leaves out
// those the member may no longer see.
type renderer struct {
	notes     *notifications.Store
	notesH    *notifications.Handler
	convs     *conversations.Store
	convsH    *conversations.Handler
	publicURL string
}

// render reads the subjects of rows, one statement per kind present (a
// post event's post came with its row), and returns the events in id
// order.
func (rd renderer) render(ctx context.Context, member int64, rows []Row) ([]event, error) {
	ids := map[string][]int64{}
	for _, r := range rows {
		ids[r.Kind] = append(ids[r.Kind], r.Ref)
	}
	notes := map[int64]gen.Notification{}
	if len(ids["notification"]) > 0 {
		items, err := rd.notes.ByIDs(ctx, member, ids["notification"])
		if err != nil {
			return nil, err
		}
		for _, n := range rd.notesH.Render(items) {
			notes[n.ID] = n
		}
	}
	msgs := map[int64]gen.Message{}
	if len(ids["message"]) > 0 {
		items, err := rd.convs.MessagesByID(ctx, member, ids["message"])
		if err != nil {
			return nil, err
		}
		for _, m := range items {
			msgs[m.ID] = rd.convsH.Message(m)
		}
	}
	var unread map[int64]int
	if len(ids["conversation"]) > 0 {
		var err error
		if unread, err = rd.convs.UnreadCounts(ctx, member, ids["conversation"]); err != nil {
			return nil, err
		}
	}
	urls := apiurl.URLs{Public: rd.publicURL}
	out := make([]event, 0, len(rows))
	for _, r := range rows {
		e := event{seq: r.Seq, name: r.Kind}
		switch r.Kind {
		case "notification":
			n, ok := notes[r.Ref]
			if !ok {
				continue
			}
			e.data = n
		case "message":
			m, ok := msgs[r.Ref]
			if !ok {
				continue
			}
			e.data = gen.StreamMessageEvent{ConversationID: m.ConversationID, Message: m}
		case "conversation":
			u, ok := unread[r.Ref]
			if !ok {
				continue
			}
			e.data = gen.StreamConversationEvent{ConversationID: r.Ref, UnreadCount: u}
		case "post":
			p := r.post
			if p == nil {
				continue
			}
			e.data = gen.StreamPostEvent{ID: p.ID, Author: urls.UserSummary(p.Author), CreatedAt: apitime.New(p.CreatedAt)}
		case "delete":
			e.data = gen.StreamDeleteEvent{ID: r.Ref}
		default:
			continue
		}
		out = append(out, e)
	}
	return out, nil
}
