package reactions

import (
	"context"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
)

// Handler answers ReactToPost and DeletePostReaction.
type Handler struct{ store *Store }

// NewHandler returns a Handler.
func NewHandler(s *Store) *Handler { return &Handler{store: s} }

// ReactToPost implements gen.StrictServerInterface.
func (h *Handler) ReactToPost(ctx context.Context, req gen.ReactToPostRequestObject) (gen.ReactToPostResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	r, err := h.store.Set(ctx, me.MemberID, req.ID, string(req.Body.Type))
	if err != nil {
		return nil, err
	}
	return gen.ReactToPost200JSONResponse{Body: gen.ReactionResultResponse{Data: toAPI(r)}}, nil
}

// DeletePostReaction implements gen.StrictServerInterface.
func (h *Handler) DeletePostReaction(ctx context.Context, req gen.DeletePostReactionRequestObject) (gen.DeletePostReactionResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	r, err := h.store.Remove(ctx, me.MemberID, req.ID)
	if err != nil {
		return nil, err
	}
	return gen.DeletePostReaction200JSONResponse{Body: gen.ReactionResultResponse{Data: toAPI(r)}}, nil
}

func toAPI(r Result) gen.ReactionResult {
	var typ *gen.ReactionType
	if r.Reaction != nil {
		t := gen.ReactionType(*r.Reaction)
		typ = &t
	}
	c := r.Counts
	return gen.ReactionResult{
		Reaction: typ,
		Counts: gen.PostCounts{Reactions: int64(c.Reactions()), Comments: int(c.Comments),
			Shares: int(c.Shares), Views: int64(c.Views)},
		ReactionCounts: apiurl.ReactionCounts(c.Like, c.Love, c.Haha, c.Wow, c.Sad, c.Angry),
	}
}
