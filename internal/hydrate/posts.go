package hydrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Post is a post with everything the API shows of it to one viewer.
type Post struct {
	ID         int64          `db:"id"`
	Type       string         `db:"type"`
	Body       string         `db:"body"`
	Visibility string         `db:"visibility"`
	Link       *string        `db:"link"`
	Tags       pq.StringArray `db:"tags"`
	CreatedAt  time.Time      `db:"created_at"`
	Author
	Comments int64 `db:"comment_count"`
	Shares   int64 `db:"share_count"`
	Views    int64 `db:"view_count"`
	Like     int64 `db:"like_count"`
	Love     int64 `db:"love_count"`
	Haha     int64 `db:"haha_count"`
	Wow      int64 `db:"wow_count"`
	Sad      int64 `db:"sad_count"`
	Angry    int64 `db:"angry_count"`
	// ViewerID is the member the post was read for; ViewerReaction is that
	// member's reaction (nil: none).
	ViewerID       int64              `db:"viewer_id"`
	ViewerReaction *string            `db:"viewer_reaction"`
	Media          JSON[[]media]      `db:"media"`
	Mentions       JSON[[]MentionRef] `db:"mentions"`
	Poll           JSON[*poll]        `db:"poll"`
}

type media struct {
	Kind       string  `json:"kind"`
	URL        string  `json:"url"`
	PreviewURL *string `json:"preview_url"`
	Width      int     `json:"width"`
	Height     int     `json:"height"`
	Alt        *string `json:"alt"`
}

type poll struct {
	ID          int64     `json:"id"`
	Question    string    `json:"question"`
	Multiple    bool      `json:"multiple"`
	VotesCount  int       `json:"votes_count"`
	VotersCount int       `json:"voters_count"`
	ExpiresAt   *jsonTime `json:"expires_at"`
	Expired     bool      `json:"expired"`
	Options     []struct {
		Index int    `json:"index"`
		Title string `json:"title"`
		Votes int    `json:"votes"`
	} `json:"options"`
	Choices []int `json:"choices"`
}

// postColumns selects a hydrated post from posts p, members m (the author)
// and reactions r (the viewer's, left-joined), for the viewer $1. The %s is
// the view counter's expression.
const postColumns = `
	p.id, p.type, p.body, p.visibility, p.link, p.tags, p.created_at,
	p.comment_count, p.share_count, %s AS view_count,
	p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count,
	m.id AS author_id, m.handle AS author_handle, m.name AS author_name,
	m.avatar_url AS author_avatar_url, m.verified AS author_verified,
	$1::bigint AS viewer_id, r.type AS viewer_reaction,
	COALESCE((SELECT json_agg(json_build_object('kind', pm.kind, 'url', pm.url, 'preview_url', pm.preview_url,
	                          'width', pm.width, 'height', pm.height, 'alt', pm.alt) ORDER BY pm.position)
	            FROM post_media pm WHERE pm.post_id = p.id), '[]') AS media,
	COALESCE((SELECT json_agg(json_build_object('id', mm.id, 'handle', mm.handle) ORDER BY x.position)
	            FROM post_mentions x JOIN members mm ON mm.id = x.member_id
	           WHERE x.post_id = p.id AND mm.suspended_at IS NULL), '[]') AS mentions,
	(SELECT json_build_object(
	            'id', pl.id, 'question', pl.question, 'multiple', pl.multiple,
	            'votes_count', pl.votes_count, 'voters_count', pl.voters_count,
	            'expires_at', pl.expires_at, 'expired', pl.expires_at IS NOT NULL AND pl.expires_at <= now(),
	            'options', COALESCE((SELECT json_agg(json_build_object('index', o.position, 'title', o.title, 'votes', o.votes)
	                                        ORDER BY o.position)
	                                   FROM poll_options o WHERE o.poll_id = pl.id), '[]'),
	            'choices', COALESCE((SELECT json_agg(v.position ORDER BY v.position)
	                                   FROM poll_votes v WHERE v.poll_id = pl.id AND v.member_id = $1), '[]'))
	   FROM polls pl WHERE pl.post_id = p.id) AS poll`

// postsQuery hydrates the posts $2 (an array of ids) for the viewer $1, in
// the order of $2, by primary key.
var postsQuery = `
	SELECT ` + fmt.Sprintf(postColumns, "p.view_count") + `
	  FROM unnest($2::bigint[]) WITH ORDINALITY AS page(id, ord)
	  JOIN posts p ON p.id = page.id
	  JOIN members m ON m.id = p.author_id
	  LEFT JOIN reactions r ON r.post_id = p.id AND r.member_id = $1
	 WHERE ` + visibility.Post("p", "$1") + `
	 ORDER BY page.ord`

// Posts returns the posts ids that viewerID may see, hydrated, in the order
// of ids, in one query. Posts deleted or hidden since ids were chosen are left
// out.
func Posts(ctx context.Context, q sqlx.QueryerContext, viewerID int64, ids []int64) ([]Post, error) {
	out := []Post{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := sqlx.SelectContext(ctx, q, &out, postsQuery, viewerID, pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	return out, nil
}

// pageQuery runs a page query (the %s: it selects id and created_at of at
// most $2 posts for the viewer $1) and hydrates the first $2-1 of those the
// viewer may still see, in one statement; slots is how many posts the page
// query chose.
const pageQuery = `
	WITH page AS MATERIALIZED (%s),
	head AS (SELECT id, created_at FROM page ORDER BY created_at DESC, id DESC LIMIT $2 - 1)
	SELECT %s, (SELECT count(*) FROM page) AS slots
	  FROM head
	  JOIN posts p ON p.id = head.id
	  JOIN members m ON m.id = p.author_id
	  LEFT JOIN reactions r ON r.post_id = p.id AND r.member_id = $1
	 WHERE %s
	 ORDER BY head.created_at DESC, head.id DESC`

// Page runs pageSQL, which selects the id and created_at of at most
// perPage+1 posts for viewerID (its $1 is viewerID and its $2 perPage+1, as
// in args), and hydrates the first perPage of them in the same statement:
// one round trip for a whole page. exact is false when a chosen post was
// hidden from the viewer (the caller then pages with Trim and Posts, which
// keep the cursor on the chosen rows); next is the position of the next page
// (nil: the page query chose no more than perPage).
func Page(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, pageSQL string, args []any) (ps []Post, next *cursor.Position, exact bool, err error) {
	var rows []struct {
		Post
		Slots int `db:"slots"`
	}
	query := fmt.Sprintf(pageQuery, pageSQL, fmt.Sprintf(postColumns, "p.view_count"), visibility.Post("p", "$1"))
	if err := sqlx.SelectContext(ctx, q, &rows, query, args...); err != nil {
		return nil, nil, false, pg.Classify(ctx, fmt.Errorf("feed page: %w", err))
	}
	slots := 0
	ps = make([]Post, len(rows))
	for i, r := range rows {
		ps[i], slots = r.Post, r.Slots
	}
	if len(rows) == 0 {
		// Nothing visible: exact only if nothing was chosen, which one
		// more look tells; the caller's slower path settles it.
		return ps, nil, false, nil
	}
	if len(ps) != min(slots, perPage) {
		return ps, nil, false, nil
	}
	if slots > perPage {
		last := ps[len(ps)-1]
		next = &cursor.Position{Time: last.CreatedAt, ID: last.ID}
	}
	return ps, next, true, nil
}

// GetPost returns post id as viewerID sees it; a post that does not exist or
// that viewerID may not see is NotFound.
func GetPost(ctx context.Context, q sqlx.QueryerContext, viewerID, id int64) (Post, error) {
	var p Post
	err := sqlx.GetContext(ctx, q, &p, getPostQuery, viewerID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Post{}, apperr.New(apperr.NotFound, "No such post.")
	}
	if err != nil {
		return Post{}, pg.Classify(ctx, fmt.Errorf("get post: %w", err))
	}
	return p, nil
}

var getPostQuery = `
	SELECT ` + fmt.Sprintf(postColumns, "p.view_count") + `
	  FROM posts p
	  JOIN members m ON m.id = p.author_id
	  LEFT JOIN reactions r ON r.post_id = p.id AND r.member_id = $1
	 WHERE p.id = $2 AND ` + visibility.Post("p", "$1")

// ReactionCounts renders the six per-type counters.
func ReactionCounts(like, love, haha, wow, sad, angry int64) gen.ReactionCounts {
	return gen.ReactionCounts{Like: int(like), Love: int(love), Haha: int(haha), Wow: int(wow), Sad: int(sad), Angry: int(angry)}
}

// PostAPI renders p.
func (u URLs) PostAPI(p Post) gen.Post {
	ms := make([]gen.Media, len(p.Media.V))
	for i, m := range p.Media.V {
		ms[i] = gen.Media{Kind: gen.MediaKind(m.Kind), URL: u.Media(m.URL), PreviewURL: u.MediaPtr(m.PreviewURL),
			Width: m.Width, Height: m.Height, Alt: m.Alt}
	}
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
		Media:      ms,
		Counts: gen.PostCounts{
			Reactions: int(p.Like + p.Love + p.Haha + p.Wow + p.Sad + p.Angry),
			Comments:  int(p.Comments), Shares: int(p.Shares), Views: int(p.Views),
		},
		CreatedAt:      apitime.New(p.CreatedAt),
		URL:            u.Post(p.Author.Handle, p.ID),
		Link:           p.Link,
		Poll:           pollAPI(p.Poll.V),
		Tags:           u.Tags(p.Tags),
		Mentions:       u.Mentions(p.Mentions.V),
		ReactionCounts: ReactionCounts(p.Like, p.Love, p.Haha, p.Wow, p.Sad, p.Angry),
		Viewer:         gen.PostViewer{Reaction: reaction, CanDelete: p.Author.ID == p.ViewerID},
	}
}

// PostsAPI renders ps (never nil).
func (u URLs) PostsAPI(ps []Post) []gen.Post {
	out := make([]gen.Post, len(ps))
	for i, p := range ps {
		out[i] = u.PostAPI(p)
	}
	return out
}

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
	return &gen.Poll{
		ID: p.ID, Question: p.Question, Options: opts, Multiple: p.Multiple,
		VotesCount: p.VotesCount, VotersCount: p.VotersCount,
		ExpiresAt: apiTimePtr(p.ExpiresAt), Expired: p.Expired,
		Viewer: gen.PollViewer{Voted: len(choices) > 0, Choices: choices},
	}
}

// Visible reports whether post id exists and viewerID may see it (nil) or
// not (NotFound).
func Visible(ctx context.Context, q sqlx.QueryerContext, viewerID, id int64) error {
	query := `SELECT EXISTS (SELECT 1 FROM posts p WHERE p.id = $2 AND ` + visibility.Post("p", "$1") + `)`
	var ok bool
	if err := sqlx.GetContext(ctx, q, &ok, query, viewerID, id); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find post: %w", err))
	}
	if !ok {
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return nil
}
