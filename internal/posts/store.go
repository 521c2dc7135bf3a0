package posts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/richtext"
	"github.com/socialnet/socialapi/internal/timeline"
	"github.com/socialnet/socialapi/internal/views"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Store writes posts and reads single posts (read.go).
type Store struct {
	db    *sqlx.DB
	prep  *pg.Prepared // the single-post read
	views *views.Counter
	get   *hydrate.Getter // read.go, over cache with slots
	cache *hydrate.Cache
	pool  *coalesce.Pool
}

// NewStore returns a Store whose single-post reads (View) count views with
// counted; a Store that never serves View (a fixture's) may pass nil.
func NewStore(db *sqlx.DB, counted *views.Counter) *Store {
	s := &Store{db: db, prep: pg.NewPrepared(db), views: counted}
	s.get = s.getter()
	return s
}

// Create publishes a post by authorID. A post without media and poll is
// one statement, so it needs no transaction.
func (s *Store) Create(ctx context.Context, authorID int64, np NewPost) (Post, error) {
	if len(np.Media) == 0 && np.Poll == nil {
		return create(ctx, s.prep, authorID, np)
	}
	var p Post
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		p, err = CreateTx(ctx, tx, authorID, np)
		return err
	})
	return p, err
}

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, authorID int64, np NewPost) (Post, error) {
	p, err := create(ctx, ex, authorID, np)
	if err != nil {
		return Post{}, err
	}
	p.View = nil // media and polls come next: read it back
	if err := insertMedia(ctx, ex, p.ID, np.Media); err != nil {
		return Post{}, err
	}
	if np.Poll != nil {
		id, err := insertPoll(ctx, ex, p.ID, p.CreatedAt, *np.Poll)
		if err != nil {
			return Post{}, err
		}
		p.PollID = &id
	}
	return p, nil
}

// createSQL inserts a post ($1 the author, $2 type, $3 body, $4 visibility
// (NULL: the author's default), $5 link, $6 hashtags, $7 time (NULL: now;
// either truncated to whole seconds, as every list's sort time, 000028),
// $8 views, $9 shares, $10 the handles it mentions, $11 the token to check,
// if any: auth.GuardSQL), records it for the
// timelines (timeline.Publish) and the mentioned members that exist, in
// order of first appearance, and notifies those of them who can see the
// post (never the author).
//
// A mentioned member the rule separates from the author (visibility.Author:
// suspended, or a block between the two either way) is not recorded: the
// mention has no effect, as one of an unknown handle. A notification is a
// stream's item: none goes to a member who may not see the post by its own
// setting (visibility.Setting), who mutes the author, or who is suspended
// (visibility.Notifies).
var createSQL = `
	WITH post AS (
	    INSERT INTO posts (author_id, type, body, visibility, link, tags, created_at, view_count, share_count)
	    SELECT m.id, $2, $3, COALESCE($4, m.default_visibility), $5, $6, date_trunc('second', COALESCE($7, now())), $8, $9
	      FROM members m WHERE m.id = $1 AND ` + auth.GuardSQL("$11") + `
	    RETURNING id, author_id, type, body, visibility, link, created_at
	), ` + timeline.Publish("post") + `, mentioned AS (
	    INSERT INTO post_mentions (post_id, member_id, position)
	    SELECT post.id, m.id, (row_number() OVER (ORDER BY h.ord)) - 1
	      FROM post
	     CROSS JOIN unnest($10::text[]) WITH ORDINALITY AS h(handle, ord)
	      JOIN members m ON lower(m.handle) = lower(h.handle) AND ` + visibility.Author("m.id", "post.author_id") + `
	    RETURNING member_id, position
	), notified AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, post_id, created_at)
	    SELECT pm.member_id, 'mention', p.author_id, p.id, p.created_at
	      FROM mentioned pm, post p
	     WHERE pm.member_id <> p.author_id AND ` + visibility.Setting("p", "pm.member_id") + `
	       AND ` + visibility.Notifies("p.author_id", "pm.member_id") + `
	     ORDER BY pm.position
	)
	SELECT post.id, post.author_id, post.type, post.body, post.visibility, post.link, post.created_at,
	       ` + hydrate.WrittenColumns("m", "mentioned") + `
	  FROM post JOIN members m ON m.id = post.author_id`

// create runs createSQL for np.
func create(ctx context.Context, q sqlx.QueryerContext, authorID int64, np NewPost) (Post, error) {
	if np.Link != nil {
		link, err := normalizeLink(*np.Link)
		if err != nil {
			return Post{}, err
		}
		np.Link = &link
	}
	typ, err := np.kind()
	if err != nil {
		return Post{}, err
	}
	tags := richtext.Parse(np.Body)
	handles := tags.Mentions
	if handles == nil {
		handles = []string{}
	}
	var row struct {
		Post
		hydrate.Written
	}
	err = sqlx.GetContext(ctx, q, &row, createSQL, authorID, typ, np.Body, np.Visibility, np.Link,
		pq.Array(tags.Tags), np.CreatedAt, np.Views, np.Shares, pq.Array(handles), auth.GuardArg(ctx))
	if errors.Is(err, sql.ErrNoRows) {
		// Or the token of a provisional principal no longer counts: the
		// edge then answers 401 instead.
		return Post{}, apperr.New(apperr.NotFound, "No such member.")
	}
	if err != nil {
		return Post{}, translate(ctx, "create post", err)
	}
	auth.Confirm(ctx)
	p := row.Post
	p.Tags = tags.Tags
	p.MentionIDs = []int64(row.Written.MentionIDs)
	// The post as its author reads it now: nothing else can have touched it
	// yet (no reaction, comment or vote; views only from the importer).
	p.View = &hydrate.Post{
		Static: &hydrate.Static{ID: p.ID, Type: p.Type, Body: p.Body, Visibility: p.Visibility, Link: p.Link, Tags: p.Tags,
			CreatedAt: p.CreatedAt, Mentions: row.Mentions(), Author: row.Author(authorID)},
		Views: np.Views, Shares: np.Shares, ViewerID: authorID,
	}
	return p, nil
}

// kind validates what the schema cannot and returns the post's type.
func (np NewPost) kind() (string, error) {
	if len(np.Media) > MaxMedia {
		return "", apperr.Field("/media", apperr.FieldTooMany, fmt.Sprintf("a post carries at most %d media", MaxMedia))
	}
	if np.Poll != nil {
		if err := np.Poll.check(); err != nil {
			return "", err
		}
	}
	if !richtext.HasContent(np.Body) {
		return "", apperr.Field("/body", apperr.FieldTooShort, "body must contain at least one visible character")
	}
	derived := "text"
	switch {
	case np.Poll != nil:
		derived = "poll"
	case len(np.Media) > 0:
		derived = "photo"
		for _, m := range np.Media {
			if m.Kind == "video" {
				derived = "video"
			}
		}
	case np.Link != nil:
		derived = "link"
	}
	switch typ := np.Type; {
	case typ == "":
		return derived, nil
	case (typ == "poll") != (np.Poll != nil):
		return "", apperr.Field("/poll", apperr.FieldInvalid, "a post has a poll if and only if its type is poll")
	case (typ == "photo" || typ == "video") && len(np.Media) == 0:
		return "", apperr.Field("/media", apperr.FieldRequired, "a "+typ+" post needs media")
	case typ == "link" && np.Link == nil:
		return "", apperr.Field("/link", apperr.FieldRequired, "a link post needs a link")
	default:
		return typ, nil // the database checks the enum
	}
}

func insertMedia(ctx context.Context, ex sqlx.ExtContext, postID int64, media []Media) error {
	const q = `
		INSERT INTO post_media (post_id, position, kind, url, preview_url, width, height, alt)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	for i, m := range media {
		if _, err := ex.ExecContext(ctx, q, postID, i, m.Kind, m.URL, m.PreviewURL, m.Width, m.Height, m.Alt); err != nil {
			if f, ok := fields[pg.ConstraintOf(err)]; ok {
				return apperr.Field(fmt.Sprintf("%s/%d", f[0], i), apperr.FieldInvalid, f[1])
			}
			return translate(ctx, "add media", err)
		}
	}
	return nil
}

// check validates what the schema cannot (or what a caller other than the
// API may get wrong): the number of options, visible text in the question
// and each option, no option twice, the time it stays open.
func (np NewPoll) check() error {
	if len(np.Options) < MinPollOptions || len(np.Options) > MaxPollOptions {
		return apperr.Field("/poll/options", apperr.FieldInvalid,
			fmt.Sprintf("a poll has %d to %d options", MinPollOptions, MaxPollOptions))
	}
	if !richtext.HasContent(np.Question) {
		return apperr.Field("/poll/question", apperr.FieldTooShort, "the question must contain at least one visible character")
	}
	seen := make(map[string]bool, len(np.Options))
	for i, o := range np.Options {
		ptr := fmt.Sprintf("/poll/options/%d", i)
		if !richtext.HasContent(o) {
			return apperr.Field(ptr, apperr.FieldTooShort, "an option must contain at least one visible character")
		}
		if seen[o] {
			return apperr.Field(ptr, apperr.FieldDuplicate, "this option is given twice")
		}
		seen[o] = true
	}
	if np.ExpiresIn != 0 && (np.ExpiresIn < MinPollExpiresIn || np.ExpiresIn > MaxPollExpiresIn) {
		return apperr.Field("/poll/expires_in", apperr.FieldOutOfRange,
			fmt.Sprintf("a poll stays open %d to %d seconds", int(MinPollExpiresIn.Seconds()), int(MaxPollExpiresIn.Seconds())))
	}
	return nil
}

func insertPoll(ctx context.Context, ex sqlx.ExtContext, postID int64, at time.Time, np NewPoll) (int64, error) {
	if np.ExpiresIn > 0 {
		e := at.Add(np.ExpiresIn)
		np.ExpiresAt = &e
	}
	if np.ExpiresAt != nil && !np.ExpiresAt.After(at) {
		return 0, apperr.Field("/poll/expires_at", apperr.FieldInvalid, "a poll must expire after it is published")
	}
	const q = `
		WITH poll AS (
		    INSERT INTO polls (post_id, question, multiple, expires_at, created_at)
		    VALUES ($1, $2, $3, $4, $5)
		    RETURNING id
		), opts AS (
		    INSERT INTO poll_options (poll_id, position, title)
		    SELECT poll.id, o.ord - 1, o.title FROM poll, unnest($6::text[]) WITH ORDINALITY AS o(title, ord)
		)
		SELECT id FROM poll`
	var id int64
	if err := sqlx.GetContext(ctx, ex, &id, q, postID, np.Question, np.Multiple, np.ExpiresAt, at, pq.Array(np.Options)); err != nil {
		return 0, translate(ctx, "add poll", err)
	}
	return id, nil
}

// Delete deletes a post by its author; its media, poll, comments, reactions
// and notifications go with it. A post that does not exist or that actorID
// cannot see is NotFound; one actorID can see but did not write is
// Forbidden. It is one statement, so it needs no transaction.
func (s *Store) Delete(ctx context.Context, actorID, postID int64) error {
	return deletePost(ctx, s.prep, actorID, postID)
}

// DeleteTx is Delete within a caller's transaction.
func DeleteTx(ctx context.Context, ex sqlx.ExtContext, actorID, postID int64) error {
	return deletePost(ctx, ex, actorID, postID)
}

// deleteSQL deletes post $1 if member $2 wrote it, with its timeline rows
// (timeline.Retract), and tells whether it did and, if not, whether $2 can
// see a post by someone else. A post deleted
// concurrently is gone for its author (the DELETE waits for it and finds
// nothing); the snapshot may still show it, hence the author test.
var deleteSQL = `
	WITH del AS (
	    DELETE FROM posts WHERE id = $1 AND author_id = $2 RETURNING id, author_id, created_at
	), ` + timeline.Retract("del") + `
	SELECT EXISTS (SELECT 1 FROM del) AS deleted,
	       EXISTS (SELECT 1 FROM posts p WHERE p.id = $1 AND p.author_id <> $2 AND ` + visibility.PostByKey("p", "$2") + `) AS forbidden`

func deletePost(ctx context.Context, q sqlx.QueryerContext, actorID, postID int64) error {
	var r struct {
		Deleted   bool `db:"deleted"`
		Forbidden bool `db:"forbidden"`
	}
	if err := sqlx.GetContext(ctx, q, &r, deleteSQL, postID, actorID); err != nil {
		return pg.Classify(ctx, fmt.Errorf("delete post: %w", err))
	}
	switch {
	case r.Deleted:
		return nil
	case r.Forbidden:
		return apperr.New(apperr.Forbidden, "Only the author can delete this post.")
	default:
		return apperr.New(apperr.NotFound, "No such post.")
	}
}

// fields maps the constraints a client's input can violate to the field it
// names.
var fields = map[string][2]string{
	"posts_body_check":             {"/body", "body must be 1 to 5000 characters"},
	"posts_visibility_check":       {"/visibility", "visibility must be public, followers or private"},
	"posts_type_check":             {"/type", "type must be text, photo, video, link or poll"},
	"posts_link_check":             {"/link", "link must be 1 to 2048 characters"},
	"posts_type_link_check":        {"/link", "a link post needs a link"},
	"post_media_kind_check":        {"/media", "media kind must be image, video or gif"},
	"post_media_url_check":         {"/media", "media url must be 1 to 2048 characters"},
	"post_media_preview_url_check": {"/media", "media preview_url must be 1 to 2048 characters"},
	"post_media_width_check":       {"/media", "media width must be positive"},
	"post_media_height_check":      {"/media", "media height must be positive"},
	"post_media_alt_check":         {"/media", "media alt must be at most 1500 characters"},
	"post_media_position_check":    {"/media", "a post has at most 10 media"},
	"posts_view_count_check":       {"/views", "views must not be negative"},
	"posts_share_count_check":      {"/shares", "shares must not be negative"},
	"polls_question_check":         {"/poll/question", "the question must be 1 to 300 characters"},
	"poll_options_title_check":     {"/poll/options", "option titles must be 1 to 100 characters"},
	"poll_options_position_check":  {"/poll/options", "a poll has at most 10 options"},
}

func translate(ctx context.Context, what string, err error) error {
	if f, ok := fields[pg.ConstraintOf(err)]; ok {
		return apperr.Field(f[0], apperr.FieldInvalid, f[1])
	}
	return pg.Classify(ctx, fmt.Errorf("%s: %w", what, err))
}
