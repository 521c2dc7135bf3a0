package posts

import (
	"context"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers GetPost, CreatePost, DeletePost and VotePoll.
type Handler struct {
	store *Store
	urls  apiurl.URLs
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// GetPost implements gen.StrictServerInterface.
func (h *Handler) GetPost(ctx context.Context, req gen.GetPostRequestObject) (gen.GetPostResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	p, err := h.store.View(ctx, me.MemberID, req.ID)
	if err != nil {
		return nil, err
	}
	// Written from the post's rendered parts: the body gen.PostResponse
	// would encode to.
	return hydrate.PostResponse{URLs: h.urls, Post: p}, nil
}

// CreatePost implements gen.StrictServerInterface.
func (h *Handler) CreatePost(ctx context.Context, req gen.CreatePostRequestObject) (gen.CreatePostResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	created, err := h.store.Create(ctx, me.MemberID, newPost(req.Body))
	if err != nil {
		return nil, err
	}
	p, err := h.readBack(ctx, me.MemberID, created)
	if err != nil {
		return nil, err
	}
	// Written from the post's rendered parts, as GetPost: the body and
	// Location gen.CreatePost201JSONResponse would write.
	return hydrate.CreatedPost{URLs: h.urls, Post: p}, nil
}

// readBack returns the created post as its author reads it: as the write
// statement told it, or read again.
func (h *Handler) readBack(ctx context.Context, authorID int64, created Post) (hydrate.Post, error) {
	if created.View != nil {
		return *created.View, nil
	}
	return h.store.Get(ctx, authorID, created.ID)
}

// DeletePost implements gen.StrictServerInterface.
func (h *Handler) DeletePost(ctx context.Context, req gen.DeletePostRequestObject) (gen.DeletePostResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	if err := h.store.Delete(ctx, me.MemberID, req.ID); err != nil {
		return nil, err
	}
	return gen.DeletePost204Response{}, nil
}

// VotePoll implements gen.StrictServerInterface.
func (h *Handler) VotePoll(ctx context.Context, req gen.VotePollRequestObject) (gen.VotePollResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	p, err := h.store.VotePoll(ctx, me.MemberID, req.ID, req.Body.Choices)
	if err != nil {
		return nil, err
	}
	return gen.VotePoll200JSONResponse{Body: gen.PollResponse{Data: *hydrate.PollAPI(p)}}, nil
}

// newPost converts the request body; the spec guarantees it is present.
func newPost(b *gen.NewPost) NewPost {
	np := NewPost{Body: b.Body, Link: b.Link}
	if b.Visibility != nil {
		v := string(*b.Visibility)
		np.Visibility = &v
	}
	if b.Poll != nil {
		np.Poll = &NewPoll{Question: b.Poll.Question, Options: b.Poll.Options,
			Multiple: b.Poll.Multiple != nil && *b.Poll.Multiple, ExpiresIn: time.Duration(b.Poll.ExpiresIn) * time.Second}
	}
	return np
}
