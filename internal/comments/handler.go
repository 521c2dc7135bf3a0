package comments

import (
	"context"
	"net/url"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
)

// Handler answers ListPostComments and CreatePostComment.
type Handler struct {
	store *Store
	urls  apiurl.URLs
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// ListPostComments implements gen.StrictServerInterface.
func (h *Handler) ListPostComments(ctx context.Context, req gen.ListPostCommentsRequestObject) (gen.ListPostCommentsResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	self := h.urls.APIPost(req.ID) + "/comments"
	fp := cursor.Fingerprint("posts/"+strconv.FormatInt(req.ID, 10)+"/comments", nil)
	after, err := cursor.Decode(fp, cursor.Deref(req.Params.Cursor))
	if err != nil {
		// A hidden or missing post answers 404 before a bad cursor answers 400.
		if verr := h.store.PostVisible(ctx, me.MemberID, req.ID); verr != nil {
			return nil, verr
		}
		return nil, err
	}
	perPage := cursor.PerPage(req.Params.PerPage)
	vs, next, err := h.store.List(ctx, me.MemberID, req.ID, after, perPage)
	if err != nil {
		return nil, err
	}
	data := make([]gen.Comment, len(vs))
	for i, v := range vs {
		data[i] = h.toAPI(v)
	}
	page := cursor.NewPage(perPage, self, url.Values{}, fp, next)
	return gen.ListPostComments200JSONResponse{
		Body:    gen.CommentList{Data: data, Meta: apiurl.ListMeta(page)},
		Headers: gen.ListPostComments200ResponseHeaders{Link: page.Link()},
	}, nil
}

// CreatePostComment implements gen.StrictServerInterface.
func (h *Handler) CreatePostComment(ctx context.Context, req gen.CreatePostCommentRequestObject) (gen.CreatePostCommentResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	c, err := h.store.Create(ctx, me.MemberID, req.ID, NewComment{Body: req.Body.Body, ParentID: req.Body.ParentID})
	if err != nil {
		return nil, err
	}
	v := c.View // as the write statement told it
	return gen.CreatePostComment201JSONResponse{
		Body:    gen.CommentResponse{Data: h.toAPI(v)},
		Headers: gen.CreatePostComment201ResponseHeaders{Location: h.urls.APIPost(v.PostID) + "/comments/" + strconv.FormatInt(v.ID, 10)},
	}, nil
}

func (h *Handler) toAPI(v View) gen.Comment {
	return gen.Comment{
		ID: v.ID, PostID: v.PostID, ParentID: v.ParentID, Depth: v.Depth, Body: v.Body,
		User:      h.urls.UserSummary(v.Author),
		Tags:      h.urls.Tags(v.Tags),
		Mentions:  h.urls.Mentions(v.Mentions.V),
		Counts:    gen.CommentCounts{Replies: v.Replies},
		CreatedAt: apitime.New(v.CreatedAt),
		URL:       h.urls.Post(v.PostAuthorHandle, v.PostID) + "#comment-" + strconv.FormatInt(v.ID, 10),
	}
}
