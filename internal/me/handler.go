package me

import (
	"context"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
)

// RateLimits reports a member's current budgets.
type RateLimits interface {
	Status(ctx context.Context, memberID int64) gen.RateLimits
}

// Handler answers GetMe.
type Handler struct {
	store     *Store
	publicURL string
	limits    RateLimits
}

// NewHandler returns a Handler.
func NewHandler(s *Store, publicURL string, limits RateLimits) *Handler {
	return &Handler{store: s, publicURL: publicURL, limits: limits}
}

// GetMe implements gen.StrictServerInterface.
func (h *Handler) GetMe(ctx context.Context, _ gen.GetMeRequestObject) (gen.GetMeResponseObject, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return nil, apperr.New(apperr.Unauthenticated, "Authentication required.")
	}
	a, err := h.store.Get(ctx, p.MemberID)
	if err != nil {
		return nil, err
	}
	return gen.GetMe200JSONResponse{Body: gen.MeResponse{Data: h.toAPI(ctx, a, p)}}, nil
}

func (h *Handler) toAPI(ctx context.Context, a Account, p auth.Principal) gen.Me {
	urls := apiurl.URLs{Public: h.publicURL}
	return gen.Me{
		ID:        a.ID,
		Handle:    a.Handle,
		Name:      a.Name,
		Avatar:    urls.MediaPtr(a.AvatarURL),
		Verified:  a.Verified,
		URL:       urls.Profile(a.Handle),
		Bio:       a.Bio,
		CreatedAt: apitime.New(a.CreatedAt),
		Counts:    gen.ProfileCounts{Followers: a.Followers, Following: a.Following, Posts: int64(a.Posts)},
		Viewer:    gen.ProfileViewer{IsSelf: true},
		Settings:  gen.MeSettings{DefaultVisibility: gen.Visibility(a.DefaultVisibility)},
		Unread:    gen.UnreadCounts{Notifications: int64(a.UnreadNotifications), Conversations: int64(a.UnreadConversations)},
		Token: gen.TokenInfo{
			Scope:     gen.Scope(p.Scope),
			CreatedAt: apitime.New(p.TokenCreatedAt),
			ExpiresAt: apitime.Ptr(p.TokenExpiresAt),
		},
		RateLimits: h.limits.Status(ctx, a.ID),
	}
}
