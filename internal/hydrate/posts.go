package hydrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Post is a post as one viewer sees it: the static part, shared and never
// changed once the post is committed (see Cache), and the live part, read on
// every request.
type Post struct {
	*Static
	Comments int64
	Shares   int64
	Views    int64
	Like     int64
	Love     int64
	Haha     int64
	Wow      int64
	Sad      int64
	Angry    int64
	// ViewerID is the member the post was read for; ViewerReaction is that
	// member's reaction (nil: none); Poll is the attached poll with the
	// viewer's choices (nil: none).
	ViewerID       int64
	ViewerReaction *string
	Poll           *poll
}

// Static is what never changes of a post once it is committed: everything
// but its counters, reactions and poll. Shared by every reader: read-only.
type Static struct {
	ID         int64
	Type       string
	Body       string
	Visibility string
	Link       *string
	Tags       []string
	CreatedAt  time.Time
	Author     Author
	Media      []media
	Mentions   []MentionRef

	// rendered: the members above as JSON (render.go), kept once the
	// Static was reused (found in a Cache): a post read once is rendered and
	// dropped, so reads that miss the cache (a member's older posts) do not
	// double what each entry holds.
	rendered atomic.Pointer[rendered]
	reused   atomic.Bool
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

// liveColumnsOf selects the live part of a post from posts p, for the viewer
// (a parameter or a column; liveColumns: $1), in the order scanLive reads
// them. Only poll posts look for a poll (a poll is attached exactly when
// type is poll).
//
// Lists are built with ARRAY(subquery) in the order of an index, not with
// json_agg: PostgreSQL sets up every node of a plan at each execution, run
// or not, and an aggregate is one of the dearest to set up, a cost every
// post pays, poll or not (docs/performance-journal.md, "Lists without
// json_agg").
func liveColumnsOf(viewer string) string {
	return `
	p.id, p.created_at, p.author_id, p.comment_count, p.share_count, p.view_count,
	p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count,
	` + reactionOf(viewer) + ` AS viewer_reaction,
	CASE WHEN p.type = 'poll' THEN (SELECT json_build_object(
	            'id', pl.id, 'question', pl.question, 'multiple', pl.multiple,
	            'votes_count', pl.votes_count, 'voters_count', pl.voters_count,
	            'expires_at', pl.expires_at, 'expired', pl.expires_at IS NOT NULL AND pl.expires_at <= now(),
	            'options', to_json(ARRAY(SELECT json_build_object('index', o.position, 'title', o.title, 'votes', o.votes)
	                                       FROM poll_options o WHERE o.poll_id = pl.id ORDER BY o.position)),
	            'choices', to_json(ARRAY(SELECT v.position
	                                       FROM poll_votes v WHERE v.poll_id = pl.id AND v.member_id = ` + viewer + ` ORDER BY v.position)))
	   FROM polls pl WHERE pl.post_id = p.id) END AS poll`
}

var liveColumns = liveColumnsOf("$1")

// reactionOf is the reaction of viewer (a parameter or a column) to post p,
// read by the reactions' whole key. It was a left join once; with the viewer
// a column of each row (a coalesced batch), that join's plan looked up the
// post's reactions by post alone and kept the viewer's with a filter, which
// reads every reaction of a popular post (docs/performance-journal.md,
// "Viewer's reaction by the whole key"). Statements whose viewer is a
// parameter planned the join by the whole key, and use the subquery too, so
// that every statement reads the reaction one way.
func reactionOf(viewer string) string {
	return `(SELECT r.type FROM reactions r WHERE r.post_id = p.id AND r.member_id = ` + viewer + `)`
}

// staticColumns selects the static part of a post from posts p and members
// m (the author), in the order staticScan reads them. Mentions of members
// suspended before the post was written were never stored (package posts);
// the filter keeps the rule in one place should that change.
const staticColumns = `
	p.type, p.body, p.visibility, p.link, p.tags,
	m.id, m.handle, m.name, m.avatar_url, m.verified,
	to_json(ARRAY(SELECT json_build_object('kind', pm.kind, 'url', pm.url, 'preview_url', pm.preview_url,
	                     'width', pm.width, 'height', pm.height, 'alt', pm.alt)
	                FROM post_media pm WHERE pm.post_id = p.id ORDER BY pm.position)) AS media,
	(SELECT json_agg(json_build_object('id', mm.id, 'handle', mm.handle) ORDER BY x.position)
	   FROM post_mentions x JOIN members mm ON mm.id = x.member_id
	  WHERE x.post_id = p.id AND mm.suspended_at IS NULL) AS mentions`

// staticScan scans staticColumns into s.
type staticScan struct {
	s               *Static
	tags            pq.StringArray
	media, mentions []byte
}

// appendDest appends the scan destinations of the static columns to dest.
func (x *staticScan) appendDest(dest []any) []any {
	a := &x.s.Author
	return append(dest, &x.s.Type, &x.s.Body, &x.s.Visibility, &x.s.Link, &x.tags,
		&a.ID, &a.Handle, &a.Name, &a.AvatarURL, &a.Verified, &x.media, &x.mentions)
}

func (x *staticScan) finish() error {
	x.s.Tags = x.tags
	if len(x.media) > len("[]") { // none: "[]", left nil
		if err := json.Unmarshal(x.media, &x.s.Media); err != nil {
			return fmt.Errorf("media of post %d: %w", x.s.ID, err)
		}
	}
	if x.mentions != nil {
		if err := json.Unmarshal(x.mentions, &x.s.Mentions); err != nil {
			return fmt.Errorf("mentions of post %d: %w", x.s.ID, err)
		}
	}
	return nil
}

// live is one row of liveColumns, then (when asked for) staticColumns,
// then (pages) slots, then (coalesced reads) ord.
type live struct {
	Post
	id        int64
	createdAt time.Time
	authorID  int64
	slots     int
	ord       int // a coalesced statement's row: which read it answers (1-based)
}

// scanLive reads rows of liveColumns, followed by staticColumns when
// withStatic and by a slots column when withSlots; n is how many rows to
// expect (a capacity hint). The rows are scanned in place into the result,
// through one destination slice, rather than a copy and a slice per row.
func scanLive(rows *sql.Rows, viewerID int64, n int, withSlots, withStatic bool) ([]live, error) {
	return scanRows(rows, viewerID, n, withSlots, withStatic, false)
}

// scanRows is scanLive, followed by one more integer column (live.ord)
// when withOrd.
func scanRows(rows *sql.Rows, viewerID int64, n int, withSlots, withStatic, withOrd bool) ([]live, error) {
	defer rows.Close()
	out := make([]live, 0, n)
	dest := make([]any, 0, 28)
	var pollJSON []byte
	var st staticScan
	for rows.Next() {
		out = append(out, live{})
		l := &out[len(out)-1]
		pollJSON = nil
		dest = append(dest[:0], &l.id, &l.createdAt, &l.authorID, &l.Comments, &l.Shares, &l.Views,
			&l.Like, &l.Love, &l.Haha, &l.Wow, &l.Sad, &l.Angry, &l.ViewerReaction, &pollJSON)
		if withStatic {
			st = staticScan{s: &Static{}}
			dest = st.appendDest(dest)
		}
		if withSlots {
			dest = append(dest, &l.slots)
		}
		if withOrd {
			dest = append(dest, &l.ord)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if pollJSON != nil {
			if err := json.Unmarshal(pollJSON, &l.Poll); err != nil {
				return nil, fmt.Errorf("poll of post %d: %w", l.id, err)
			}
		}
		if withStatic {
			st.s.ID, st.s.CreatedAt = l.id, l.createdAt
			if err := st.finish(); err != nil {
				return nil, err
			}
			l.Static = st.s
		}
		l.ViewerID = viewerID
	}
	return out, rows.Err()
}

// staticQuery reads the static parts of the posts $1 (an array of ids).
var staticQuery = NewListQuery("$1", func(list string) string {
	return `
	SELECT p.id, p.created_at, ` + staticColumns + `
	  FROM ` + list + `
	  JOIN posts p ON p.id = page.id
	  JOIN members m ON m.id = p.author_id`
})

// statics returns the static parts of ids, by id, from c or (the rest) from
// the database; a post deleted meanwhile is missing.
func (c *Cache) statics(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]*Static, error) {
	found, missing := c.lookup(ids)
	if len(missing) == 0 {
		return found, nil
	}
	fetched, err := fetchStatics(ctx, q, missing)
	if err != nil {
		return nil, err
	}
	c.put(fetched, false)
	if found == nil {
		return fetched, nil
	}
	for id, s := range fetched {
		found[id] = s
	}
	return found, nil
}

// fetchStatics reads the static parts of ids; deleted posts are missing.
func fetchStatics(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]*Static, error) {
	query, list := staticQuery.Query(ids)
	rows, err := q.QueryContext(ctx, query, list)
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	defer rows.Close()
	found := make(map[int64]*Static, len(ids))
	for rows.Next() {
		st := staticScan{s: &Static{}}
		if err := rows.Scan(st.appendDest([]any{&st.s.ID, &st.s.CreatedAt})...); err != nil {
			return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
		}
		if err := st.finish(); err != nil {
			return nil, err
		}
		found[st.s.ID] = st.s
	}
	if err := rows.Err(); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	return found, nil
}

// attach completes ls with their static parts: those read with them go into
// c, the others come from known (parts the caller already looked up), c or
// one more statement. A post deleted since its live part was read is left
// out. A cached part whose author or creation time differs from the live
// row's (post ids reused: the database was reset under a running server) is
// read again and replaced.
func (c *Cache) attach(ctx context.Context, q sqlx.QueryerContext, ls []live, known map[int64]*Static) ([]Post, error) {
	if err := c.fill(ctx, q, ls, known); err != nil {
		return nil, err
	}
	ps := make([]Post, 0, len(ls))
	for _, l := range ls {
		if l.Static != nil {
			ps = append(ps, l.Post)
		}
	}
	return ps, nil
}

// fill is attach in place: a post deleted since its live part was read is
// left without a static part.
func (c *Cache) fill(ctx context.Context, q sqlx.QueryerContext, ls []live, known map[int64]*Static) error {
	var need []int64
	read := map[int64]*Static{}
	for i := range ls {
		switch l := &ls[i]; {
		case l.Static != nil:
			read[l.id] = l.Static
		case known[l.id] != nil:
			l.Static = known[l.id]
		default:
			need = append(need, l.id)
		}
	}
	c.put(read, true)
	if len(need) > 0 {
		found, err := c.statics(ctx, q, need)
		if err != nil {
			return err
		}
		for i := range ls {
			if ls[i].Static == nil {
				ls[i].Static = found[ls[i].id]
			}
		}
	}
	var stale []int64
	for i := range ls {
		if s := ls[i].Static; s != nil && (s.Author.ID != ls[i].authorID || !s.CreatedAt.Equal(ls[i].createdAt)) {
			stale = append(stale, ls[i].id)
			ls[i].Static = nil
		}
	}
	if len(stale) > 0 {
		fresh, err := fetchStatics(ctx, q, stale)
		if err != nil {
			return err
		}
		c.put(fresh, true)
		for i := range ls {
			if ls[i].Static == nil {
				ls[i].Static = fresh[ls[i].id]
			}
		}
	}
	return nil
}

// columns returns the select list of a post read for the viewer $1 (the
// live part, and the static part too when withStatic) and the join the
// static part needs.
func columns(withStatic bool) (cols, join string) {
	if withStatic {
		return liveColumns + ", " + staticColumns, "JOIN members m ON m.id = p.author_id"
	}
	return liveColumns, ""
}

// ListQuery is a statement over a list of ids (a bigint[] parameter),
// written for each size class of the list. PostgreSQL sizes unnest of a
// known array exactly but guesses 100 elements for a parameter, so a
// prepared statement's generic plan always looked dearer than a custom plan
// for the 1 or 20 ids at hand and every execution was planned again
// (docs/performance-journal.md, "List statements by size class"). The list
// here walks the array's subscripts under a LIMIT of the size class (the next
// power of 4, never below the list's length): custom and generic plans are
// then sized alike, close to the truth, and the statement settles on its
// generic plan. Lists longer than maxListClass get the bare subscripts.
//
// A list of one id has a statement of its own (Query), where the id is a
// bigint parameter and the list a single row: PostgreSQL then reads the
// post by primary key with no list to walk, which cost the single post's
// statement about a tenth of its PostgreSQL CPU.
type ListQuery struct {
	param   string
	extra   string // more columns of page, over the subscript i (For only)
	build   func(list string) string
	classes sync.Map // size class → statement text
	one     func() string
}

const maxListClass = 1024

// NewListQuery returns the statement build(list) where list is the FROM
// item "page(id, ord)" of the ids in param, in their order.
func NewListQuery(param string, build func(list string) string) *ListQuery {
	return &ListQuery{param: param, build: build, one: sync.OnceValue(func() string {
		return build("(SELECT " + param + "::bigint AS id, 1 AS ord) AS page")
	})}
}

// Query returns the statement for ids and the argument of its list
// parameter: the id itself for a list of one (unless the list has more
// columns), else the array.
func (q *ListQuery) Query(ids []int64) (string, any) {
	if len(ids) == 1 && q.extra == "" {
		return q.one(), ids[0]
	}
	return q.For(len(ids)), pq.Array(ids)
}

// sizeClass is the size class of a list of n: the next power of 4, never
// below n, up to the first past maxListClass.
func sizeClass(n int) int {
	class := 1
	for class < n && class <= maxListClass {
		class *= 4
	}
	return class
}

// For returns the statement for a list of n ids.
func (q *ListQuery) For(n int) string {
	class := sizeClass(n)
	if text, ok := q.classes.Load(class); ok {
		return text.(string)
	}
	limit := ""
	if class <= maxListClass {
		limit = " LIMIT " + strconv.Itoa(class)
	}
	text := q.build("(SELECT (" + q.param + "::bigint[])[i] AS id, i AS ord" + q.extra + " FROM generate_subscripts(" + q.param +
		"::bigint[], 1) AS g(i)" + limit + ") AS page")
	q.classes.Store(class, text)
	return text
}

// byIDs reads the posts $2 (an array of ids) for the viewer $1, in the
// order of $2, by primary key: the live part, and the static part too when
// withStatic; $3 is the token check (auth.GuardSQL).
func byIDs(withStatic bool) *ListQuery {
	cols, join := columns(withStatic)
	return NewListQuery("$2", func(list string) string {
		return `
	SELECT ` + cols + `
	  FROM ` + list + `
	  JOIN posts p ON p.id = page.id
	  ` + join + `
	 WHERE ` + visibility.Post("p", "$1") + ` AND ` + auth.GuardSQL("$3") + `
	 ORDER BY page.ord`
	})
}

var postsQuery, postsStaticQuery = byIDs(false), byIDs(true)

// Posts returns the posts ids that viewerID may see, hydrated, in the order
// of ids, in one query: the live part alone when c holds every static part,
// else both. Posts deleted or hidden since ids were chosen are left out.
func (c *Cache) Posts(ctx context.Context, q sqlx.QueryerContext, viewerID int64, ids []int64) ([]Post, error) {
	if len(ids) == 0 {
		return []Post{}, nil
	}
	known, missing := c.lookup(ids)
	query, list := postsQuery.Query(ids)
	withStatic := len(missing) > 0
	if withStatic {
		query, list = postsStaticQuery.Query(ids)
	}
	rows, err := q.QueryContext(ctx, query, viewerID, list, auth.GuardArg(ctx))
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	ls, err := scanLive(rows, viewerID, len(ids), false, withStatic)
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	if len(ls) > 0 {
		auth.Confirm(ctx)
	}
	return c.attach(ctx, q, ls, known)
}

// Statics says where Page takes the static parts of a page's posts from.
type Statics bool

const (
	// FromCache: the cache, and one more statement for those it lacks; for
	// posts that many read (timelines, discover).
	FromCache Statics = false
	// WithPage: the page's own statement (and into the cache); for posts
	// few read again soon (a member's whole history).
	WithPage Statics = true
)

// pageQuery runs a page query (the %s: it selects id and created_at of at
// most $2 posts for the viewer $1) and reads the live part (and, when
// withStatic, the static part) of the first $2-1 of those the viewer may
// still see, in one statement; slots is how many posts the page query chose.
//
// guard is the parameter of the token check (auth.GuardSQL).
func pageQuery(withStatic Statics, pageSQL, guard string) string {
	cols, join := columns(bool(withStatic))
	return `
	WITH page AS MATERIALIZED (` + pageSQL + `),
	head AS (SELECT id, created_at FROM page ORDER BY created_at DESC, id DESC LIMIT $2 - 1)
	SELECT ` + cols + `, (SELECT count(*) FROM page) AS slots
	  FROM head
	  JOIN posts p ON p.id = head.id
	  ` + join + `
	 WHERE ` + visibility.Post("p", "$1") + ` AND ` + auth.GuardSQL(guard) + `
	 ORDER BY head.created_at DESC, head.id DESC`
}

// pageStatements memoizes the statements Page builds from pageQueries and a
// page query: a page query has few forms (with or without a cursor, a
// page size), and a statement of several kilobytes was formatted on every
// request.
var pageStatements sync.Map // pageKey → string

type pageKey struct {
	statics Statics
	pageSQL string
	guard   int // the number of the token check's parameter
}

// pageStatement is the statement Page runs for pageSQL, with the token
// check's parameter $guard.
func pageStatement(statics Statics, pageSQL string, guard int) string {
	k := pageKey{statics, pageSQL, guard}
	if s, ok := pageStatements.Load(k); ok {
		return s.(string)
	}
	s, _ := pageStatements.LoadOrStore(k, pageQuery(statics, pageSQL, "$"+strconv.Itoa(guard)))
	return s.(string)
}

// Page runs pageSQL, which selects the id and created_at of at most
// perPage+1 posts for viewerID (its $1 is viewerID and its $2 perPage+1, as
// in args), and hydrates the first perPage of them in the same statement
// (plus one for the static parts c does not hold, with FromCache). exact is false when a
// chosen post was hidden from the viewer or deleted meanwhile (the caller
// then pages with Trim and Posts, which keep the cursor on the chosen rows);
// next is the position of the next page (nil: the page query chose no more
// than perPage).
func (c *Cache) Page(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, statics Statics, pageSQL string, args []any) (ps []Post, next *cursor.Position, exact bool, err error) {
	ls, err := c.pageRows(ctx, q, viewerID, perPage, statics, pageSQL, args)
	if err != nil {
		return nil, nil, false, pg.Classify(ctx, fmt.Errorf("feed page: %w", err))
	}
	if len(ls) > 0 {
		auth.Confirm(ctx)
	}
	if len(ls) == 0 {
		// Nothing visible: exact only if nothing was chosen, which one
		// more look tells; the caller's slower path settles it.
		return []Post{}, nil, false, nil
	}
	slots := ls[0].slots
	if len(ls) != min(slots, perPage) {
		return nil, nil, false, nil
	}
	if ps, err = c.attach(ctx, q, ls, nil); err != nil {
		return nil, nil, false, err
	}
	if len(ps) != len(ls) {
		return nil, nil, false, nil
	}
	if slots > perPage {
		last := ls[len(ls)-1]
		next = &cursor.Position{Time: last.createdAt, ID: last.id}
	}
	return ps, next, true, nil
}

// pageRowsAlone runs the page statement for one page read, alone.
func pageRowsAlone(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, statics Statics, pageSQL string, args []any) ([]live, error) {
	args = append(args[:len(args):len(args)], auth.GuardArg(ctx))
	rows, err := q.QueryContext(ctx, pageStatement(statics, pageSQL, len(args)), args...)
	if err != nil {
		return nil, err
	}
	return scanLive(rows, viewerID, perPage+1, true, bool(statics))
}

// ReactionCounts renders the six per-type counters.
func ReactionCounts(like, love, haha, wow, sad, angry int64) gen.ReactionCounts {
	return gen.ReactionCounts{Like: int(like), Love: int(love), Haha: int(haha), Wow: int(wow), Sad: int(sad), Angry: int(angry)}
}

// PostAPI renders p.
func (u URLs) PostAPI(p Post) gen.Post {
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
		Media:      u.mediaAPI(p.Media),
		Counts: gen.PostCounts{
			Reactions: int(p.Like + p.Love + p.Haha + p.Wow + p.Sad + p.Angry),
			Comments:  int(p.Comments), Shares: int(p.Shares), Views: int(p.Views),
		},
		CreatedAt:      apitime.New(p.CreatedAt),
		URL:            u.Post(p.Author.Handle, p.ID),
		Link:           p.Link,
		Poll:           pollAPI(p.Poll),
		Tags:           u.Tags(p.Tags),
		Mentions:       u.Mentions(p.Mentions),
		ReactionCounts: ReactionCounts(p.Like, p.Love, p.Haha, p.Wow, p.Sad, p.Angry),
		Viewer:         gen.PostViewer{Reaction: reaction, CanDelete: p.Author.ID == p.ViewerID},
	}
}

// mediaAPI renders a post's media (never nil).
func (u URLs) mediaAPI(ms []media) []gen.Media {
	out := make([]gen.Media, len(ms))
	for i, m := range ms {
		out[i] = gen.Media{Kind: gen.MediaKind(m.Kind), URL: u.Media(m.URL), PreviewURL: u.MediaPtr(m.PreviewURL),
			Width: m.Width, Height: m.Height, Alt: m.Alt}
	}
	return out
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
