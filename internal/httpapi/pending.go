package httpapi

import (
	"context"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apperr"
)

// pending answers the operations whose implementation has not landed yet
// with a documented 501 problem. Each method moves to its resource's Handler
// when that resource is built; embedding both is then a compile error, so
// nothing is answered twice.
type pending struct{}

func notImplemented() error {
	return apperr.New(apperr.NotImplemented, "This operation is part of the contract but not implemented in this build yet.")
}

// ListConversations answers 501 until its issue lands.
func (pending) ListConversations(context.Context, gen.ListConversationsRequestObject) (gen.ListConversationsResponseObject, error) {
	return nil, notImplemented()
}

// ListConversationMessages answers 501 until its issue lands.
func (pending) ListConversationMessages(context.Context, gen.ListConversationMessagesRequestObject) (gen.ListConversationMessagesResponseObject, error) {
	return nil, notImplemented()
}

// CreateConversationMessage answers 501 until its issue lands.
func (pending) CreateConversationMessage(context.Context, gen.CreateConversationMessageRequestObject) (gen.CreateConversationMessageResponseObject, error) {
	return nil, notImplemented()
}

// ListFeed answers 501 until its issue lands.
func (pending) ListFeed(context.Context, gen.ListFeedRequestObject) (gen.ListFeedResponseObject, error) {
	return nil, notImplemented()
}

// ListJobs answers 501 until its issue lands.
func (pending) ListJobs(context.Context, gen.ListJobsRequestObject) (gen.ListJobsResponseObject, error) {
	return nil, notImplemented()
}

// ListListings answers 501 until its issue lands.
func (pending) ListListings(context.Context, gen.ListListingsRequestObject) (gen.ListListingsResponseObject, error) {
	return nil, notImplemented()
}

// ListNotifications answers 501 until its issue lands.
func (pending) ListNotifications(context.Context, gen.ListNotificationsRequestObject) (gen.ListNotificationsResponseObject, error) {
	return nil, notImplemented()
}

// CreatePost answers 501 until its issue lands.
func (pending) CreatePost(context.Context, gen.CreatePostRequestObject) (gen.CreatePostResponseObject, error) {
	return nil, notImplemented()
}

// DeletePost answers 501 until its issue lands.
func (pending) DeletePost(context.Context, gen.DeletePostRequestObject) (gen.DeletePostResponseObject, error) {
	return nil, notImplemented()
}

// GetPost answers 501 until its issue lands.
func (pending) GetPost(context.Context, gen.GetPostRequestObject) (gen.GetPostResponseObject, error) {
	return nil, notImplemented()
}

// ListPostComments answers 501 until its issue lands.
func (pending) ListPostComments(context.Context, gen.ListPostCommentsRequestObject) (gen.ListPostCommentsResponseObject, error) {
	return nil, notImplemented()
}

// CreatePostComment answers 501 until its issue lands.
func (pending) CreatePostComment(context.Context, gen.CreatePostCommentRequestObject) (gen.CreatePostCommentResponseObject, error) {
	return nil, notImplemented()
}

// DeletePostReaction answers 501 until its issue lands.
func (pending) DeletePostReaction(context.Context, gen.DeletePostReactionRequestObject) (gen.DeletePostReactionResponseObject, error) {
	return nil, notImplemented()
}

// ReactToPost answers 501 until its issue lands.
func (pending) ReactToPost(context.Context, gen.ReactToPostRequestObject) (gen.ReactToPostResponseObject, error) {
	return nil, notImplemented()
}

// SearchAll answers 501 until its issue lands.
func (pending) SearchAll(context.Context, gen.SearchAllRequestObject) (gen.SearchAllResponseObject, error) {
	return nil, notImplemented()
}

// GetUser answers 501 until its issue lands.
func (pending) GetUser(context.Context, gen.GetUserRequestObject) (gen.GetUserResponseObject, error) {
	return nil, notImplemented()
}

// ToggleFollow answers 501 until its issue lands.
func (pending) ToggleFollow(context.Context, gen.ToggleFollowRequestObject) (gen.ToggleFollowResponseObject, error) {
	return nil, notImplemented()
}

// ListUserPosts answers 501 until its issue lands.
func (pending) ListUserPosts(context.Context, gen.ListUserPostsRequestObject) (gen.ListUserPostsResponseObject, error) {
	return nil, notImplemented()
}
