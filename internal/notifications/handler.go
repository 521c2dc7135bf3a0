package notifications

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
)

// Handler answers ListNotifications and MarkNotificationsRead.
type Handler struct {
	store     *Store
	publicURL string
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{store: s, publicURL: publicURL}
}

// ListNotifications implements gen.StrictServerInterface.
func (h *Handler) ListNotifications(ctx context.Context, req gen.ListNotificationsRequestObject) (gen.ListNotificationsResponseObject, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthenticated, "Authentication required.")
	}
	f, query := filterOf(req.Params)
	var unread int
	r := cursor.Request{Scope: "notifications", Self: h.publicURL + "/api/v1/notifications", Query: query,
		PerPage: req.Params.PerPage, Cursor: req.Params.Cursor}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) (items []Item, err error) {
		items, unread, err = h.store.List(ctx, p.MemberID, f, after, limit)
		return items, err
	})
	if err != nil {
		return nil, err
	}
	return gen.ListNotifications200JSONResponse{
		Body:    gen.NotificationList{Data: h.toAPI(items), Meta: apiurl.InboxListMeta(page, unread)},
		Headers: gen.ListNotifications200ResponseHeaders{Link: page.Link()},
	}, nil
}

// MarkNotificationsRead implements gen.StrictServerInterface.
func (h *Handler) MarkNotificationsRead(ctx context.Context, req gen.MarkNotificationsReadRequestObject) (gen.MarkNotificationsReadResponseObject, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthenticated, "Authentication required.")
	}
	var upTo *int64
	if req.Body != nil {
		upTo = req.Body.UpToID
	}
	marked, unread, err := h.store.MarkRead(ctx, p.MemberID, upTo)
	if err != nil {
		return nil, err
	}
	return gen.MarkNotificationsRead200JSONResponse{Body: gen.NotificationsReadResponse{
		Data: gen.NotificationsReadResult{Marked: int64(marked), UnreadCount: int64(unread)}}}, nil
}

// filterOf turns the request parameters into a Filter and the query values
// the cursor is bound to.
func filterOf(p gen.ListNotificationsParams) (Filter, url.Values) {
	v := url.Values{}
	var f Filter
	if p.Unread != nil {
		f.Unread = *p.Unread
		v.Set("unread", strconv.FormatBool(*p.Unread))
	}
	if p.Type != nil {
		f.Type = string(*p.Type)
		v.Set("type", f.Type)
	}
	return f, v
}

func (h *Handler) toAPI(items []Item) []gen.Notification {
	out := make([]gen.Notification, len(items))
	for i, it := range items {
		n := gen.Notification{
			ID:             it.ID,
			Type:           gen.NotificationType(it.Type),
			Actor:          h.summary(it.Actor),
			PostID:         it.PostID,
			CommentID:      it.CommentID,
			ConversationID: it.ConversationID,
			Read:           it.Read,
			CreatedAt:      apitime.New(it.CreatedAt),
			URL:            h.subjectURL(it),
		}
		if it.Reaction != nil {
			r := gen.ReactionType(*it.Reaction)
			n.Reaction = &r
		}
		out[i] = n
	}
	return out
}

// subjectURL is the public page of what a notification is about: the
// conversation's message, the post (at the comment), or the actor's profile.
func (h *Handler) subjectURL(it Item) string {
	urls := apiurl.URLs{Public: h.publicURL}
	switch {
	case it.ConversationID != nil && it.MessageID != nil:
		return fmt.Sprintf("%s/messages/%d#message-%d", h.publicURL, *it.ConversationID, *it.MessageID)
	case it.ConversationID != nil:
		return fmt.Sprintf("%s/messages/%d", h.publicURL, *it.ConversationID)
	case it.PostID != nil && it.PostAuthor != nil:
		u := urls.Post(*it.PostAuthor, *it.PostID)
		if it.CommentID != nil {
			u += fmt.Sprintf("#comment-%d", *it.CommentID)
		}
		return u
	}
	return urls.Profile(it.Actor.Handle)
}

func (h *Handler) summary(m Member) gen.UserSummary {
	return apiurl.URLs{Public: h.publicURL}.UserSummary(apiurl.Author{ID: m.ID, Handle: m.Handle, Name: m.Name,
		AvatarURL: m.AvatarURL, Verified: m.Verified})
}

// Render is items as the list shows them (the event stream's notification
// events).
func (h *Handler) Render(items []Item) []gen.Notification { return h.toAPI(items) }
