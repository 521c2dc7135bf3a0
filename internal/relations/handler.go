package relations

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers BlockUser, UnblockUser, MuteUser, UnmuteUser, ListBlocks
// and ListMutes.
type Handler struct {
	store *Store
	read  sqlx.QueryerContext // the lists' profiles
	urls  apiurl.URLs
}

// NewHandler returns a Handler; read is where the lists' profiles are read.
func NewHandler(s *Store, read sqlx.QueryerContext, urls apiurl.URLs) *Handler {
	return &Handler{store: s, read: read, urls: urls}
}

func (h *Handler) set(ctx context.Context, handle string, kind Kind, on bool) (gen.RelationshipResponse, error) {
	me, _ := auth.FromContext(ctx)
	r, err := h.store.Set(ctx, me.MemberID, handle, kind, on)
	if err != nil {
		return gen.RelationshipResponse{}, err
	}
	return gen.RelationshipResponse{Data: gen.ProfileViewer{
		IsSelf: r.IsSelf, Following: r.Following, FollowedBy: r.FollowedBy, Blocking: r.Blocking, Muting: r.Muting,
	}}, nil
}

// BlockUser implements gen.StrictServerInterface.
func (h *Handler) BlockUser(ctx context.Context, req gen.BlockUserRequestObject) (gen.BlockUserResponseObject, error) {
	body, err := h.set(ctx, req.Handle, Block, true)
	if err != nil {
		return nil, err
	}
	return gen.BlockUser200JSONResponse{Body: body}, nil
}

// UnblockUser implements gen.StrictServerInterface.
func (h *Handler) UnblockUser(ctx context.Context, req gen.UnblockUserRequestObject) (gen.UnblockUserResponseObject, error) {
	body, err := h.set(ctx, req.Handle, Block, false)
	if err != nil {
		return nil, err
	}
	return gen.UnblockUser200JSONResponse{Body: body}, nil
}

// MuteUser implements gen.StrictServerInterface.
func (h *Handler) MuteUser(ctx context.Context, req gen.MuteUserRequestObject) (gen.MuteUserResponseObject, error) {
	body, err := h.set(ctx, req.Handle, Mute, true)
	if err != nil {
		return nil, err
	}
	return gen.MuteUser200JSONResponse{Body: body}, nil
}

// UnmuteUser implements gen.StrictServerInterface.
func (h *Handler) UnmuteUser(ctx context.Context, req gen.UnmuteUserRequestObject) (gen.UnmuteUserResponseObject, error) {
	body, err := h.set(ctx, req.Handle, Mute, false)
	if err != nil {
		return nil, err
	}
	return gen.UnmuteUser200JSONResponse{Body: body}, nil
}

// list answers one page of the members the caller places kind on, as
// profiles the caller sees.
func (h *Handler) list(ctx context.Context, kind Kind, path string, perPage *int, cur *string) (gen.ProfileList, cursor.Page, error) {
	me, _ := auth.FromContext(ctx)
	r := cursor.Request{Scope: path, Self: h.urls.API + path, PerPage: perPage, Cursor: cur}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) ([]Item, error) {
		return h.store.List(ctx, me.MemberID, kind, after, limit)
	})
	if err != nil {
		return gen.ProfileList{}, cursor.Page{}, err
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.MemberID
	}
	ps, err := hydrate.Profiles(ctx, h.read, me.MemberID, ids)
	if err != nil {
		return gen.ProfileList{}, cursor.Page{}, err
	}
	data := make([]gen.Profile, len(ps))
	for i, p := range ps {
		data[i] = hydrate.ProfileAPI(h.urls, p)
	}
	return gen.ProfileList{Data: data, Meta: apiurl.ListMeta(page)}, page, nil
}

// ListBlocks implements gen.StrictServerInterface.
func (h *Handler) ListBlocks(ctx context.Context, req gen.ListBlocksRequestObject) (gen.ListBlocksResponseObject, error) {
	body, page, err := h.list(ctx, Block, "/me/blocks", req.Params.PerPage, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	return gen.ListBlocks200JSONResponse{Body: body, Headers: gen.ListBlocks200ResponseHeaders{Link: page.Link()}}, nil
}

// ListMutes implements gen.StrictServerInterface.
func (h *Handler) ListMutes(ctx context.Context, req gen.ListMutesRequestObject) (gen.ListMutesResponseObject, error) {
	body, page, err := h.list(ctx, Mute, "/me/mutes", req.Params.PerPage, req.Params.Cursor)
	if err != nil {
		return nil, err
	}
	return gen.ListMutes200JSONResponse{Body: body, Headers: gen.ListMutes200ResponseHeaders{Link: page.Link()}}, nil
}
