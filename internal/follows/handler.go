package follows

import (
	"context"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers ToggleFollow.
type Handler struct {
	store *Store
	urls  apiurl.URLs
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// ToggleFollow implements gen.StrictServerInterface.
func (h *Handler) ToggleFollow(ctx context.Context, req gen.ToggleFollowRequestObject) (gen.ToggleFollowResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	following, p, err := h.store.ToggleProfile(ctx, me.MemberID, req.Handle)
	if err != nil {
		return nil, err
	}
	return gen.ToggleFollow200JSONResponse{Body: gen.FollowResultResponse{
		Data: gen.FollowResult{Following: following, User: hydrate.ProfileAPI(h.urls, p)},
	}}, nil
}
