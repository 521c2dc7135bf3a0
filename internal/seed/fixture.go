package seed

import "time"

// Fixture is a parsed fixture document (db/FIXTURES.md,
// db/fixture.schema.json). Entries reference members by handle
// (case-insensitive) and posts, comments and conversations by their key.
type Fixture struct {
	Members       []Member       `json:"members"`
	Follows       []Follow       `json:"follows"`
	Posts         []Post         `json:"posts"`
	Comments      []Comment      `json:"comments"`
	Reactions     []Reaction     `json:"reactions"`
	Conversations []Conversation `json:"conversations"`
	Listings      []Listing      `json:"listings"`
	Jobs          []Job          `json:"jobs"`
}

// Member is a member with its API tokens. SuspendedAt is applied after
// every other entry, so a suspended member's history imports like anyone's.
type Member struct {
	Handle            string     `json:"handle"`
	Name              string     `json:"name"`
	Verified          bool       `json:"verified"`
	Bio               *string    `json:"bio"`
	Avatar            *string    `json:"avatar"`
	DefaultVisibility string     `json:"default_visibility"`
	CreatedAt         *time.Time `json:"created_at"`
	SuspendedAt       *time.Time `json:"suspended_at"`
	Tokens            []Token    `json:"tokens"`
}

// Token is an API token; without Value the importer generates one and
// reports it in Summary.Tokens.
type Token struct {
	Name      string     `json:"name"`
	Scope     string     `json:"scope"`
	Value     string     `json:"value"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Follow is one member following another.
type Follow struct {
	Follower  string     `json:"follower"`
	Followee  string     `json:"followee"`
	CreatedAt *time.Time `json:"created_at"`
}

// Post is a post, optionally with media or a poll and its votes.
type Post struct {
	Key        string     `json:"key"`
	Author     string     `json:"author"`
	Body       string     `json:"body"`
	Visibility *string    `json:"visibility"`
	Link       *string    `json:"link"`
	CreatedAt  *time.Time `json:"created_at"`
	Type       string     `json:"type"`
	Views      int64      `json:"views"`
	Shares     int64      `json:"shares"`
	Media      []Media    `json:"media"`
	Poll       *Poll      `json:"poll"`
}

// Media is one image, video or gif of a post.
type Media struct {
	Kind       string  `json:"kind"`
	URL        string  `json:"url"`
	Width      int     `json:"width"`
	Height     int     `json:"height"`
	Alt        *string `json:"alt"`
	PreviewURL *string `json:"preview_url"`
}

// Poll is a post's poll and the votes cast in it.
type Poll struct {
	Question  string     `json:"question"`
	Options   []string   `json:"options"`
	Multiple  bool       `json:"multiple"`
	ExpiresAt *time.Time `json:"expires_at"`
	Votes     []Vote     `json:"votes"`
}

// Vote is one member's choices (0-based option indexes) in a poll.
type Vote struct {
	Voter   string `json:"voter"`
	Choices []int  `json:"choices"`
}

// Comment is a comment on a post, or a reply to an earlier comment of the
// same post.
type Comment struct {
	Key       string     `json:"key"`
	Post      string     `json:"post"`
	Author    string     `json:"author"`
	Body      string     `json:"body"`
	Parent    *string    `json:"parent"`
	CreatedAt *time.Time `json:"created_at"`
}

// Reaction is a member's reaction to a post.
type Reaction struct {
	Post      string     `json:"post"`
	Member    string     `json:"member"`
	Type      string     `json:"type"`
	CreatedAt *time.Time `json:"created_at"`
}

// Conversation is a conversation (started by its first participant) and its
// messages in order.
type Conversation struct {
	Key          string    `json:"key"`
	Participants []string  `json:"participants"`
	Messages     []Message `json:"messages"`
}

// Message is one message of a conversation.
type Message struct {
	Sender    string     `json:"sender"`
	Body      string     `json:"body"`
	CreatedAt *time.Time `json:"created_at"`
}

// Listing is a marketplace listing.
type Listing struct {
	Seller      string     `json:"seller"`
	Category    string     `json:"category"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	PriceMinor  int64      `json:"price_minor"`
	Currency    string     `json:"currency"`
	Condition   string     `json:"condition"`
	City        string     `json:"city"`
	Region      *string    `json:"region"`
	Country     string     `json:"country"`
	Status      string     `json:"status"`
	CreatedAt   *time.Time `json:"created_at"`
	Images      []Image    `json:"images"`
}

// Image is one picture of a listing.
type Image struct {
	URL    string  `json:"url"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Alt    *string `json:"alt"`
}

// Job is a job offer.
type Job struct {
	Title          string     `json:"title"`
	Company        Company    `json:"company"`
	City           *string    `json:"city"`
	Region         *string    `json:"region"`
	Country        *string    `json:"country"`
	Workplace      string     `json:"workplace"`
	EmploymentType string     `json:"employment_type"`
	Salary         *Salary    `json:"salary"`
	Description    string     `json:"description"`
	ApplyURL       *string    `json:"apply_url"`
	PostedAt       *time.Time `json:"posted_at"`
	ExpiresAt      *time.Time `json:"expires_at"`
	Closed         bool       `json:"closed"`
}

// Company is the employer of a job.
type Company struct {
	Name string  `json:"name"`
	Logo *string `json:"logo"`
	URL  *string `json:"url"`
}

// Salary is a job's pay range in minor units per period.
type Salary struct {
	MinMinor int64  `json:"min_minor"`
	MaxMinor *int64 `json:"max_minor"`
	Currency string `json:"currency"`
	Period   string `json:"period"`
}
