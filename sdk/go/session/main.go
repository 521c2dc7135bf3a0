// Command session drives the generated Go SDK through an integrator's first
// session against a live server: read the index and /me, publish a post, read
// it back (and conditionally: 304), page through the feed to the end, react,
// comment, publish a poll and vote in it, hold the event stream (another
// member's reaction arrives as a notification event; a comment made while
// disconnected arrives on resume with Last-Event-ID), follow and unfollow,
// then hit a 404 and a 422 and read the problem bodies through the typed
// responses. It cleans up after itself: the reactions and the posts are
// deleted, and the follow toggle runs twice (follow then unfollow, or the
// reverse when the caller already follows FOLLOW).
//
//	BASE_URL=http://localhost:8080/api/v1 TOKEN=snw_... OTHER_TOKEN=snw_... [FOLLOW=bob] [STREAM_BASE_URL=...] go run ./session
//
// OTHER_TOKEN is a write token of another member, who reacts and comments
// for the stream step. STREAM_BASE_URL is where the stream is opened
// (default BASE_URL): a proxy that waits for a response's end before
// passing it on, as prism does, cannot carry an endless stream.
//
// It prints one line per check and closes with "N passed, N failed"; the exit
// status is 1 when a check failed.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	socialapi "github.com/socialnet/socialapi/sdk/go"
)

type session struct {
	ctx            context.Context
	c              *socialapi.ClientWithResponses
	other          *socialapi.ClientWithResponses // OTHER_TOKEN's member
	streamer       *socialapi.Client              // TOKEN's, without a timeout, on STREAM_BASE_URL
	passed, failed int
}

func (s *session) check(ok bool, format string, args ...any) bool {
	if ok {
		s.passed++
		fmt.Printf("ok    %s\n", fmt.Sprintf(format, args...))
	} else {
		s.failed++
		fmt.Printf("FAIL  %s\n", fmt.Sprintf(format, args...))
	}
	return ok
}

// must stops the session when a step it depends on failed.
func (s *session) must(ok bool, format string, args ...any) {
	if !s.check(ok, format, args...) {
		s.finish()
	}
}

func (s *session) finish() {
	fmt.Printf("go-sdk: %d passed, %d failed\n", s.passed, s.failed)
	if s.failed > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

func main() {
	base, token, other := os.Getenv("BASE_URL"), os.Getenv("TOKEN"), os.Getenv("OTHER_TOKEN")
	if base == "" || token == "" || other == "" {
		fmt.Fprintln(os.Stderr, "usage: BASE_URL=https://host/api/v1 TOKEN=snw_... OTHER_TOKEN=snw_... [FOLLOW=handle] [STREAM_BASE_URL=...] session")
		os.Exit(2)
	}
	streamBase := os.Getenv("STREAM_BASE_URL")
	if streamBase == "" {
		streamBase = base
	}
	follow := os.Getenv("FOLLOW")
	if follow == "" {
		follow = "bob"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := must(socialapi.NewClientWithResponses(base, as(token, 30*time.Second)...))
	oc := must(socialapi.NewClientWithResponses(base, as(other, 30*time.Second)...))
	// A stream lasts until it is closed: its client has no timeout (the
	// step's context bounds it).
	sc := must(socialapi.NewClient(streamBase, as(token, 0)...))
	s := &session{ctx: ctx, c: c, other: oc, streamer: sc}
	s.run(follow)
	s.finish()
}

// as is the options of a client that signs its requests with token and
// gives up after timeout (0: never).
func as(token string, timeout time.Duration) []socialapi.ClientOption {
	return []socialapi.ClientOption{
		socialapi.WithHTTPClient(&http.Client{Timeout: timeout}),
		socialapi.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}),
	}
}

// must returns v, or ends the session when a client could not be made.
func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return v
}

func (s *session) run(follow string) {
	ctx, c := s.ctx, s.c

	idx, err := c.GetIndexWithResponse(ctx, nil)
	s.must(err == nil && idx.JSON200 != nil, "GET / answers the index (%v, %s)", err, status(idx))
	d := idx.JSON200.Data
	s.check(d.Version != "" && len(d.OpenapiSha256) == 64 && len(d.Endpoints) > 0,
		"index: version %s, openapi_sha256 %.12s…, %d endpoints", d.Version, d.OpenapiSha256, len(d.Endpoints))
	s.check(idx.Headers200 != nil && idx.Headers200.Link != nil && strings.Contains(*idx.Headers200.Link, `rel="service-desc"`) ||
		hasServiceDesc(idx.HTTPResponse), "index links the contract with rel=\"service-desc\"")

	me, err := c.GetMeWithResponse(ctx, nil)
	s.must(err == nil && me.JSON200 != nil, "GET /me (%v, %s)", err, status(me))
	handle := me.JSON200.Data.Handle
	s.check(me.Headers200 != nil && me.Headers200.XRateLimitRemaining != nil, "/me: @%s, rate-limit headers parsed", handle)

	public := socialapi.Public
	body := "Contract session " + time.Now().UTC().Format(time.RFC3339) + " #sdk"
	created, err := c.CreatePostWithResponse(ctx, &socialapi.CreatePostParams{IdempotencyKey: ptr(newKey())},
		socialapi.NewPost{Body: body, Visibility: &public})
	s.must(err == nil && created.JSON201 != nil, "POST /posts (%v, %s)", err, status(created))
	post := created.JSON201.Data
	s.check(post.Body == body && created.HTTPResponse.Header.Get("Location") != "", "created post %d with a Location", post.ID)
	defer func() {
		del, err := c.DeletePostWithResponse(ctx, post.ID)
		s.check(err == nil && del.StatusCode() == http.StatusNoContent, "DELETE /posts/%d (%v, %s)", post.ID, err, status(del))
	}()

	got, err := c.GetPostWithResponse(ctx, post.ID, nil)
	s.must(err == nil && got.JSON200 != nil && got.Headers200 != nil && got.Headers200.ETag != nil, "GET /posts/%d with an ETag (%v, %s)", post.ID, err, status(got))
	again, err := c.GetPostWithResponse(ctx, post.ID, &socialapi.GetPostParams{IfNoneMatch: got.Headers200.ETag})
	s.check(err == nil && again.StatusCode() == http.StatusNotModified && len(again.Body) == 0,
		"GET /posts/%d If-None-Match %s: 304 without a body (%v, %s)", post.ID, *got.Headers200.ETag, err, status(again))

	// The home feed, newest first, to the end; our post is on the first page.
	var pages, items int
	var sawPost bool
	params := &socialapi.ListFeedParams{PerPage: ptr[socialapi.PerPage](5)}
	for {
		page, err := c.ListFeedWithResponse(ctx, params)
		if !s.check(err == nil && page.JSON200 != nil, "GET /feed page %d (%v, %s)", pages+1, err, status(page)) {
			break
		}
		pages++
		items += len(page.JSON200.Data)
		for _, p := range page.JSON200.Data {
			sawPost = sawPost || p.ID == post.ID
		}
		m := page.JSON200.Meta
		if !m.HasMore {
			s.check(m.NextCursor == nil && m.NextURL == nil, "feed ends after %d pages, %d posts", pages, items)
			break
		}
		if !s.check(m.NextCursor != nil && pages < 200, "page %d has a next cursor", pages) {
			break
		}
		params.Cursor = m.NextCursor
	}
	s.check(sawPost, "the new post is in the home feed")

	react, err := c.ReactToPostWithResponse(ctx, post.ID, nil, socialapi.NewReaction{Type: socialapi.Love})
	s.check(err == nil && react.JSON200 != nil && react.JSON200.Data.Reaction != nil && *react.JSON200.Data.Reaction == socialapi.Love,
		"POST /posts/%d/react love (%v, %s)", post.ID, err, status(react))
	unreact, err := c.DeletePostReactionWithResponse(ctx, post.ID)
	s.check(err == nil && unreact.JSON200 != nil && unreact.JSON200.Data.Reaction == nil, "DELETE /posts/%d/react (%v, %s)", post.ID, err, status(unreact))

	comment, err := c.CreatePostCommentWithResponse(ctx, post.ID, nil, socialapi.NewComment{Body: "First comment from the Go SDK"})
	s.check(err == nil && comment.JSON201 != nil, "POST /posts/%d/comments (%v, %s)", post.ID, err, status(comment))
	comments, err := c.ListPostCommentsWithResponse(ctx, post.ID, nil)
	s.check(err == nil && comments.JSON200 != nil && len(comments.JSON200.Data) == 1, "GET /posts/%d/comments lists it (%v, %s)", post.ID, err, status(comments))

	s.poll()
	s.stream(post.ID)

	first, err := c.ToggleFollowWithResponse(ctx, follow, nil)
	s.must(err == nil && first.JSON200 != nil, "POST /users/%s/follow (%v, %s)", follow, err, status(first))
	second, err := c.ToggleFollowWithResponse(ctx, follow, nil)
	s.check(err == nil && second.JSON200 != nil && second.JSON200.Data.Following == !first.JSON200.Data.Following,
		"toggling @%s twice: following %v then %v", follow, first.JSON200.Data.Following, second.JSON200 != nil && second.JSON200.Data.Following)

	missing, err := c.GetPostWithResponse(ctx, 9007199254740991, nil)
	if s.check(err == nil && missing.ApplicationProblemJSON404 != nil, "GET a missing post: 404 problem (%v, %s)", err, status(missing)) {
		p := missing.ApplicationProblemJSON404
		s.check(p.Code == socialapi.ProblemCodeNotFound && p.Status == 404 && p.RequestID != "",
			"404 problem: code %s, status %d, request_id %s", p.Code, p.Status, p.RequestID)
	}
	self, err := c.ToggleFollowWithResponse(ctx, handle, nil)
	if s.check(err == nil && self.ApplicationProblemJSON422 != nil, "follow yourself: 422 problem (%v, %s)", err, status(self)) {
		p := self.ApplicationProblemJSON422
		s.check(p.Code == socialapi.ProblemCodeCannotFollowSelf && p.Status == 422 && p.Detail != "",
			"422 problem: code %s, detail %q", p.Code, p.Detail)
	}
}

// poll publishes a post with a poll, votes in it, reads the post back with
// the vote (voted, own_votes, the counts), sees a second vote refused with
// already_voted, and deletes the post.
func (s *session) poll() {
	ctx, c := s.ctx, s.c
	created, err := c.CreatePostWithResponse(ctx, &socialapi.CreatePostParams{IdempotencyKey: ptr(newKey())}, socialapi.NewPost{
		Body: "Contract session poll #sdk",
		Poll: &socialapi.NewPoll{Question: "Tabs or spaces?", Options: []string{"Tabs", "Spaces"}, ExpiresIn: 3600},
	})
	if !s.check(err == nil && created.JSON201 != nil && created.JSON201.Data.Poll != nil, "POST /posts with a poll (%v, %s)", err, status(created)) {
		return
	}
	p := created.JSON201.Data
	defer func() {
		del, err := c.DeletePostWithResponse(ctx, p.ID)
		s.check(err == nil && del.StatusCode() == http.StatusNoContent, "DELETE /posts/%d (%v, %s)", p.ID, err, status(del))
	}()
	s.check(p.Type == socialapi.PostTypePoll && len(p.Poll.Options) == 2 && !p.Poll.Voted && len(p.Poll.OwnVotes) == 0,
		"post %d is a poll: %d options, not voted", p.ID, len(p.Poll.Options))
	voted, err := c.VotePollWithResponse(ctx, p.ID, &socialapi.VotePollParams{IdempotencyKey: ptr(newKey())}, socialapi.NewPollVote{Choices: []int32{1}})
	s.check(err == nil && voted.JSON200 != nil && voted.JSON200.Data.Voted && slices.Equal(voted.JSON200.Data.OwnVotes, []int32{1}),
		"POST /posts/%d/poll/votes [1]: voted (%v, %s)", p.ID, err, status(voted))
	got, err := c.GetPostWithResponse(ctx, p.ID, nil)
	if s.check(err == nil && got.JSON200 != nil && got.JSON200.Data.Poll != nil, "GET /posts/%d (%v, %s)", p.ID, err, status(got)) {
		pl := got.JSON200.Data.Poll
		s.check(pl.Voted && slices.Equal(pl.OwnVotes, []int32{1}) && pl.VotesCount == 1 && pl.Options[1].Votes == 1,
			"the poll reads back with the vote: voted %v, own_votes %v, votes_count %d", pl.Voted, pl.OwnVotes, pl.VotesCount)
	}
	again, err := c.VotePollWithResponse(ctx, p.ID, nil, socialapi.NewPollVote{Choices: []int32{0}})
	if s.check(err == nil && again.ApplicationProblemJSON422 != nil, "a second vote: 422 problem (%v, %s)", err, status(again)) {
		e := again.ApplicationProblemJSON422.Errors
		s.check(len(e) == 1 && e[0].Code == socialapi.ProblemFieldCodeAlreadyVoted, "422 problem: errors %+v", e)
	}
}

// stream opens the caller's event stream, has the other member react to
// post and reads the notification event (decoded strictly into the
// contract's StreamNotificationEvent); then it closes the stream, has the
// other member comment, resumes with the last event's id and reads the
// missed comment's notification (and no refetch). The reaction is removed
// after; the comment goes with the post.
func (s *session) stream(post int64) {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	open := func(last *string) (*socialapi.StreamReader, func(), bool) {
		resp, err := s.streamer.GetStream(ctx, &socialapi.GetStreamParams{LastEventID: last})
		if !s.check(err == nil && resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "text/event-stream",
			"GET /stream (Last-Event-ID %v): 200 text/event-stream (%v, %s)", deref(last), err, httpStatus(resp)) {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, nil, false
		}
		return socialapi.NewStreamReader(resp.Body), func() { resp.Body.Close() }, true
	}
	// next reads events until one that want accepts (other events, such
	// as posts entering the feed, may come between).
	next := func(r *socialapi.StreamReader, want func(socialapi.StreamEvent, socialapi.StreamNotificationEvent) bool) (socialapi.StreamEvent, bool) {
		for {
			ev, err := r.Next()
			if err != nil {
				s.check(false, "stream: read (%v)", err)
				return ev, false
			}
			if ev.Event == "refetch" {
				s.check(false, "stream: refetch within the resume window (%s)", ev.Data)
				return ev, false
			}
			if ev.Event != "notification" {
				continue
			}
			var n socialapi.StreamNotificationEvent
			if !s.check(ev.Decode(&n) == nil && ev.ID != "", "stream: notification event %s decodes as StreamNotificationEvent", ev.ID) {
				return ev, false
			}
			if want(ev, n) {
				return ev, true
			}
		}
	}

	r, closeStream, ok := open(nil)
	if !ok {
		return
	}
	react, err := s.other.ReactToPostWithResponse(s.ctx, post, nil, socialapi.NewReaction{Type: socialapi.Like})
	if !s.check(err == nil && react.JSON200 != nil, "the other member reacts to post %d (%v, %s)", post, err, status(react)) {
		closeStream()
		return
	}
	defer func() {
		del, err := s.other.DeletePostReactionWithResponse(s.ctx, post)
		s.check(err == nil && del.JSON200 != nil, "the other member's reaction removed (%v, %s)", err, status(del))
	}()
	first, ok := next(r, func(_ socialapi.StreamEvent, n socialapi.StreamNotificationEvent) bool {
		return n.Type == socialapi.NotificationTypeReaction && n.PostID != nil && *n.PostID == post
	})
	closeStream()
	if !s.check(ok, "stream: the reaction arrives as notification event %s", first.ID) {
		return
	}

	// Disconnected: the other member comments; the resumed stream has it.
	comment, err := s.other.CreatePostCommentWithResponse(s.ctx, post, nil, socialapi.NewComment{Body: "While you were away"})
	if !s.check(err == nil && comment.JSON201 != nil, "the other member comments on post %d while the stream is closed (%v, %s)", post, err, status(comment)) {
		return
	}
	r, closeStream, ok = open(&first.ID)
	if !ok {
		return
	}
	defer closeStream()
	missed, ok := next(r, func(_ socialapi.StreamEvent, n socialapi.StreamNotificationEvent) bool {
		return n.CommentID != nil && *n.CommentID == comment.JSON201.Data.ID
	})
	s.check(ok && mustID(missed.ID) > mustID(first.ID), "stream: resumed after %s, the missed comment arrives as event %s", first.ID, missed.ID)
}

func deref(p *string) string {
	if p == nil {
		return "none"
	}
	return *p
}

func mustID(id string) int64 {
	var n int64
	_, _ = fmt.Sscan(id, &n)
	return n
}

func httpStatus(r *http.Response) string {
	if r == nil {
		return "no response"
	}
	return r.Status
}

type statuser interface{ Status() string }

// status describes a response for a check's message; a nil one (the request
// failed) is "no response".
func status(r statuser) (s string) {
	defer func() {
		if recover() != nil {
			s = "no response"
		}
	}()
	return r.Status()
}

func hasServiceDesc(r *http.Response) bool {
	for _, v := range r.Header.Values("Link") {
		if strings.HasSuffix(v, `rel="service-desc"`) {
			return true
		}
	}
	return false
}

func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func ptr[T any](v T) *T { return &v }
