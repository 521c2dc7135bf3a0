// Package posts writes posts and reads them one at a time. It writes:
// publishing (with media, poll, hashtags, mentions and `mention`
// notifications), deleting, and poll votes (vote.go). It reads
// (read.go) the single post as a viewer sees it, with its views counted,
// through hydrate's Getter (which coalesces concurrent reads and shares
// hydrate's Cache with every other read of posts), and whether a post exists
// for a viewer (hydrate.Visible, which comments checks too). Lists of posts
// (the feed, a member's posts, search) are their own packages', through
// hydrate's Cache.
package posts

import (
	"time"

	"github.com/socialnet/socialapi/internal/hydrate"
)

// Media is one image, video or gif attached to a post.
type Media struct {
	Kind       string // image, video or gif
	URL        string
	PreviewURL *string
	Width      int
	Height     int
	Alt        *string
}

// NewPoll is a poll attached to a new post.
type NewPoll struct {
	Question string
	Options  []string // 2 to 10 titles; an option's index is its position here
	Multiple bool
	// ExpiresAt is when voting closes (nil: never; fixtures only); ExpiresIn,
	// when positive, sets it to the post's created_at plus ExpiresIn (the
	// API's expires_in).
	ExpiresAt *time.Time
	ExpiresIn time.Duration
}

// NewPost describes a post to publish.
type NewPost struct {
	Body       string
	Visibility *string // nil: the author's members.default_visibility
	Link       *string
	// Type is text, photo, video, link or poll; "" derives it: poll with a
	// poll, video with a video among the media, photo with other media, link
	// with a link, else text.
	Type      string
	Media     []Media
	Poll      *NewPoll
	CreatedAt *time.Time // nil: now (fixtures set it)
	// Views and Shares preset the counters that have no write path in v1
	// (fixtures only).
	Views, Shares int64
}

// Post is a stored post as Create returns it.
type Post struct {
	ID         int64     `db:"id"`
	AuthorID   int64     `db:"author_id"`
	Type       string    `db:"type"`
	Body       string    `db:"body"`
	Visibility string    `db:"visibility"`
	Link       *string   `db:"link"`
	Tags       []string  `db:"-"`
	CreatedAt  time.Time `db:"created_at"`
	// MentionIDs are the members mentioned in Body that exist and are not
	// suspended, in order of first appearance.
	MentionIDs []int64 `db:"-"`
	PollID     *int64  `db:"-"`
	// View is the post as its author reads it right after the write, when
	// the write statement could tell all of it (a post without media or
	// poll); nil: read it back (Store.Get).
	View *hydrate.Post `db:"-"`
}

// MaxMedia is how many media a post may carry; MinPollOptions and
// MaxPollOptions bound a poll's options (NewPoll.options in openapi.yaml
// says the same), MinPollExpiresIn and MaxPollExpiresIn the time a poll
// made through the API stays open (NewPoll.expires_in).
const (
	MaxMedia         = 4
	MinPollOptions   = 2
	MaxPollOptions   = 10
	MinPollExpiresIn = 5 * time.Minute
	MaxPollExpiresIn = 7 * 24 * time.Hour
)
