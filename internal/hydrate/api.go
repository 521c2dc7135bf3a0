package hydrate

import (
	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
)

// PostAPI renders p.
func PostAPI(u apiurl.URLs, p Post) gen.Post {
	var reaction *gen.ReactionType
	if p.ViewerReaction != nil {
		r := gen.ReactionType(*p.ViewerReaction)
		reaction = &r
	}
	return gen.Post{
		ID:         p.ID,
		Type:       gen.PostType(p.Type),
		Body:       p.Body,
		Visibility: gen.Visibility(p.Visibility),
		User:       u.UserSummary(p.Author),
		Media:      mediaAPI(u, p.Media),
		Counts: gen.PostCounts{
			Reactions: int64(p.Like) + int64(p.Love) + int64(p.Haha) + int64(p.Wow) + int64(p.Sad) + int64(p.Angry),
			Comments:  int(p.Comments), Shares: int(p.Shares), Views: int64(p.Views),
		},
		CreatedAt:      apitime.New(p.CreatedAt),
		URL:            u.Post(p.Author.Handle, p.ID),
		Link:           p.Link,
		Poll:           pollAPI(p.Poll),
		Tags:           u.Tags(p.Tags),
		Mentions:       u.Mentions(p.Mentions),
		ReactionCounts: apiurl.ReactionCounts(p.Like, p.Love, p.Haha, p.Wow, p.Sad, p.Angry),
		Viewer:         gen.PostViewer{Reaction: reaction, CanDelete: p.Author.ID == p.ViewerID},
	}
}

// mediaAPI renders a post's media (never nil).
func mediaAPI(u apiurl.URLs, ms []media) []gen.Media {
	out := make([]gen.Media, len(ms))
	for i, m := range ms {
		out[i] = gen.Media{Kind: gen.MediaKind(m.Kind), URL: u.Media(m.URL), PreviewURL: u.MediaPtr(m.PreviewURL),
			Width: m.Width, Height: m.Height, Alt: m.Alt}
	}
	return out
}

// PostsAPI renders ps (never nil).
func PostsAPI(u apiurl.URLs, ps []Post) []gen.Post {
	out := make([]gen.Post, len(ps))
	for i, p := range ps {
		out[i] = PostAPI(u, p)
	}
	return out
}

// PollAPI renders the poll of p (nil: p has none) as p's viewer sees it.
func PollAPI(p Post) *gen.Poll { return pollAPI(p.Poll) }

func pollAPI(p *poll) *gen.Poll {
	if p == nil {
		return nil
	}
	opts := make([]gen.PollOption, len(p.Options))
	for i, o := range p.Options {
		opts[i] = gen.PollOption{Index: o.Index, Title: o.Title, Votes: o.Votes}
	}
	choices := p.Choices
	if choices == nil {
		choices = []int{}
	}
	voted := len(choices) > 0
	return &gen.Poll{
		ID: p.ID, Question: p.Question, Options: opts, Multiple: p.Multiple,
		VotesCount: p.VotesCount, VotersCount: p.VotersCount,
		ExpiresAt: apiTimePtr(p.ExpiresAt), Expired: p.Expired,
		Voted: voted, OwnVotes: choices,
		Viewer: gen.PollViewer{Voted: voted, Choices: choices},
	}
}

func apiTimePtr(t *jsonTime) *apitime.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	v := apitime.New(t.Time)
	return &v
}
