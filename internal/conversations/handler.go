package conversations

import (
	"context"
	"fmt"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
)

// Handler answers the conversation operations.
type Handler struct {
	store     *Store
	publicURL string
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{store: s, publicURL: publicURL}
}

func caller(ctx context.Context) (int64, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return 0, apperr.New(apperr.Unauthenticated, "Authentication required.")
	}
	return p.MemberID, nil
}

// ListConversations implements gen.StrictServerInterface.
func (h *Handler) ListConversations(ctx context.Context, req gen.ListConversationsRequestObject) (gen.ListConversationsResponseObject, error) {
	me, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	var unread int
	r := cursor.Request{Scope: "conversations", Self: h.publicURL + "/api/v1/conversations", PerPage: req.Params.PerPage, Cursor: req.Params.Cursor}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) (items []Item, err error) {
		items, unread, err = h.store.List(ctx, me, after, limit)
		return items, err
	})
	if err != nil {
		return nil, err
	}
	data := make([]gen.Conversation, len(items))
	for i, it := range items {
		data[i] = h.conversation(it)
	}
	return gen.ListConversations200JSONResponse{
		Body:    gen.ConversationList{Data: data, Meta: apiurl.InboxListMeta(page, unread)},
		Headers: gen.ListConversations200ResponseHeaders{Link: page.Link()},
	}, nil
}

// ListConversationMessages implements gen.StrictServerInterface.
func (h *Handler) ListConversationMessages(ctx context.Context, req gen.ListConversationMessagesRequestObject) (gen.ListConversationMessagesResponseObject, error) {
	me, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	self := fmt.Sprintf("%s/api/v1/conversations/%d/messages", h.publicURL, req.ID)
	r := cursor.Request{Scope: self, Self: self, PerPage: req.Params.PerPage, Cursor: req.Params.Cursor}
	msgs, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) ([]MessageItem, error) {
		return h.store.Messages(ctx, me, req.ID, after, limit)
	})
	if err != nil {
		return nil, err
	}
	data := make([]gen.Message, len(msgs))
	for i, m := range msgs {
		data[i] = h.message(m)
	}
	return gen.ListConversationMessages200JSONResponse{
		Body:    gen.MessageList{Data: data, Meta: apiurl.ListMeta(page)},
		Headers: gen.ListConversationMessages200ResponseHeaders{Link: page.Link()},
	}, nil
}

// CreateConversationMessage implements gen.StrictServerInterface.
func (h *Handler) CreateConversationMessage(ctx context.Context, req gen.CreateConversationMessageRequestObject) (gen.CreateConversationMessageResponseObject, error) {
	me, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := h.store.Send(ctx, me, req.ID, req.Body.Body, nil)
	if err != nil {
		return nil, err
	}
	return gen.CreateConversationMessage201JSONResponse{
		Body: gen.MessageResponse{Data: h.message(m)},
		Headers: gen.CreateConversationMessage201ResponseHeaders{
			Location: fmt.Sprintf("%s/api/v1/conversations/%d/messages/%d", h.publicURL, m.ConversationID, m.ID)},
	}, nil
}

// CreateConversation implements gen.StrictServerInterface.
func (h *Handler) CreateConversation(ctx context.Context, req gen.CreateConversationRequestObject) (gen.CreateConversationResponseObject, error) {
	me, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.store.Start(ctx, me, req.Body.Participants, req.Body.Body)
	if err != nil {
		return nil, err
	}
	it, err := h.store.Get(ctx, me, c.ID)
	if err != nil {
		return nil, err
	}
	body := gen.ConversationResponse{Data: h.conversation(it)}
	if !c.Created {
		return gen.CreateConversation200JSONResponse{Body: body}, nil
	}
	return gen.CreateConversation201JSONResponse{Body: body, Headers: gen.CreateConversation201ResponseHeaders{
		Location: fmt.Sprintf("%s/api/v1/conversations/%d", h.publicURL, c.ID)}}, nil
}

// MarkConversationRead implements gen.StrictServerInterface.
func (h *Handler) MarkConversationRead(ctx context.Context, req gen.MarkConversationReadRequestObject) (gen.MarkConversationReadResponseObject, error) {
	me, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	it, err := h.store.MarkRead(ctx, me, req.ID)
	if err != nil {
		return nil, err
	}
	return gen.MarkConversationRead200JSONResponse{Body: gen.ConversationResponse{Data: h.conversation(it)}}, nil
}

func (h *Handler) conversation(it Item) gen.Conversation {
	ps := make([]gen.UserSummary, len(it.Participants))
	for i, p := range it.Participants {
		ps[i] = h.summary(p)
	}
	c := gen.Conversation{ID: it.ID, Participants: ps, UnreadCount: it.UnreadCount, UpdatedAt: apitime.New(it.UpdatedAt),
		URL: fmt.Sprintf("%s/messages/%d", h.publicURL, it.ID)}
	if it.LastMessage != nil {
		m := h.message(*it.LastMessage)
		c.LastMessage = &m
	}
	return c
}

func (h *Handler) message(m MessageItem) gen.Message {
	return gen.Message{ID: m.ID, ConversationID: m.ConversationID, Sender: h.summary(m.Sender), Body: m.Body,
		CreatedAt: apitime.New(m.CreatedAt), URL: fmt.Sprintf("%s/messages/%d#message-%d", h.publicURL, m.ConversationID, m.ID)}
}

func (h *Handler) summary(m Member) gen.UserSummary {
	return apiurl.URLs{Public: h.publicURL}.UserSummary(apiurl.Author{ID: m.ID, Handle: m.Handle, Name: m.Name,
		AvatarURL: m.AvatarURL, Verified: m.Verified})
}

// Message is m as the messages list shows it (the event stream's message
// events).
func (h *Handler) Message(m MessageItem) gen.Message { return h.message(m) }
