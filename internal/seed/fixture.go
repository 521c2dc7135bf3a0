package seed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/members"
)

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

// EntryError is a failure about one entry of a fixture, e.g.
// `posts[3].author: unknown member "zed"`. It wraps the cause (an
// *apperr.Error when a store rejected the entry).
type EntryError struct {
	Entry string // e.g. "posts[3].author" or "comments[4]"
	Err   error
}

// Error reads like `posts[3].author: unknown member "zed"`.
func (e *EntryError) Error() string { return e.Entry + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *EntryError) Unwrap() error { return e.Err }

func entryErr(entry string, format string, args ...any) error {
	return &EntryError{Entry: entry, Err: fmt.Errorf(format, args...)}
}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Parse decodes a fixture strictly (unknown fields, trailing data and wrong
// types are errors) and checks what the JSON Schema cannot: every reference
// names an earlier entry, keys and handles are unique, a reply's parent is
// a comment of the same post, poll choices exist, senders take part in their
// conversation. The first problem is returned as an *EntryError.
func Parse(b []byte) (*Fixture, error) {
	if err := validateSchema(b); err != nil {
		return nil, err
	}
	var raw struct {
		Members       []json.RawMessage `json:"members"`
		Follows       []json.RawMessage `json:"follows"`
		Posts         []json.RawMessage `json:"posts"`
		Comments      []json.RawMessage `json:"comments"`
		Reactions     []json.RawMessage `json:"reactions"`
		Conversations []json.RawMessage `json:"conversations"`
		Listings      []json.RawMessage `json:"listings"`
		Jobs          []json.RawMessage `json:"jobs"`
	}
	if err := decodeStrict(b, &raw); err != nil {
		return nil, &EntryError{Entry: "fixture", Err: err}
	}
	fx := &Fixture{}
	// Entries are decoded one by one so that an error names its entry.
	for _, d := range []error{
		decodeAll("members", raw.Members, &fx.Members),
		decodeAll("follows", raw.Follows, &fx.Follows),
		decodeAll("posts", raw.Posts, &fx.Posts),
		decodeAll("comments", raw.Comments, &fx.Comments),
		decodeAll("reactions", raw.Reactions, &fx.Reactions),
		decodeAll("conversations", raw.Conversations, &fx.Conversations),
		decodeAll("listings", raw.Listings, &fx.Listings),
		decodeAll("jobs", raw.Jobs, &fx.Jobs),
	} {
		if d != nil {
			return nil, d
		}
	}
	if err := fx.check(); err != nil {
		return nil, err
	}
	return fx, nil
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON document")
	}
	return nil
}

func decodeAll[T any](kind string, raws []json.RawMessage, out *[]T) error {
	*out = make([]T, len(raws))
	for i, r := range raws {
		if bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			return entryErr(fmt.Sprintf("%s[%d]", kind, i), "must be an object")
		}
		if err := decodeStrict(r, &(*out)[i]); err != nil {
			return &EntryError{Entry: fmt.Sprintf("%s[%d]", kind, i), Err: err}
		}
	}
	return nil
}

// check verifies the references and rules across entries.
func (fx *Fixture) check() error {
	handles := map[string]bool{} // lower-cased
	member := func(entry, h string) error {
		if h == "" {
			return entryErr(entry, "required")
		}
		if !handles[strings.ToLower(h)] {
			return entryErr(entry, "unknown member %q", h)
		}
		return nil
	}
	for i, m := range fx.Members {
		e := fmt.Sprintf("members[%d]", i)
		if !members.HandlePattern.MatchString(m.Handle) {
			return entryErr(e+".handle", "invalid handle %q", m.Handle)
		}
		if handles[strings.ToLower(m.Handle)] {
			return entryErr(e+".handle", "duplicate handle %q", m.Handle)
		}
		handles[strings.ToLower(m.Handle)] = true
		if err := checkURL(e+".avatar", m.Avatar); err != nil {
			return err
		}
		for j, t := range m.Tokens {
			te := fmt.Sprintf("%s.tokens[%d]", e, j)
			if t.Scope != string(auth.ScopeRead) && t.Scope != string(auth.ScopeWrite) {
				return entryErr(te+".scope", `must be "read" or "write"`)
			}
			if t.Value != "" {
				if s, ok := auth.Parse(t.Value); !ok || string(s) != t.Scope {
					return entryErr(te+".value", "not a well-formed %s token", t.Scope)
				}
			}
		}
	}
	follows := map[[2]string]bool{}
	for i, f := range fx.Follows {
		e := fmt.Sprintf("follows[%d]", i)
		if err := member(e+".follower", f.Follower); err != nil {
			return err
		}
		if err := member(e+".followee", f.Followee); err != nil {
			return err
		}
		pair := [2]string{strings.ToLower(f.Follower), strings.ToLower(f.Followee)}
		switch {
		case pair[0] == pair[1]:
			return entryErr(e, "%s cannot follow themselves", f.Follower)
		case follows[pair]:
			return entryErr(e, "%s already follows %s", f.Follower, f.Followee)
		}
		follows[pair] = true
	}
	posts := map[string]int{} // key → number of poll options (0: no poll)
	for i, p := range fx.Posts {
		e := fmt.Sprintf("posts[%d]", i)
		if err := newKey(e+".key", p.Key, posts); err != nil {
			return err
		}
		if err := member(e+".author", p.Author); err != nil {
			return err
		}
		posts[p.Key] = 0
		if err := checkURL(e+".link", p.Link); err != nil {
			return err
		}
		for j, m := range p.Media {
			if err := checkURL(fmt.Sprintf("%s.media[%d].url", e, j), &m.URL); err != nil {
				return err
			}
			if err := checkURL(fmt.Sprintf("%s.media[%d].preview_url", e, j), m.PreviewURL); err != nil {
				return err
			}
		}
		if p.Poll == nil {
			continue
		}
		posts[p.Key] = len(p.Poll.Options)
		voters := map[string]bool{}
		for j, v := range p.Poll.Votes {
			ve := fmt.Sprintf("%s.poll.votes[%d]", e, j)
			if err := member(ve+".voter", v.Voter); err != nil {
				return err
			}
			if voters[strings.ToLower(v.Voter)] {
				return entryErr(ve+".voter", "%s has already voted", v.Voter)
			}
			voters[strings.ToLower(v.Voter)] = true
			chosen := map[int]bool{}
			for k, c := range v.Choices {
				ce := fmt.Sprintf("%s.choices[%d]", ve, k)
				if c < 0 || c >= len(p.Poll.Options) {
					return entryErr(ce, "no option %d", c)
				}
				if chosen[c] {
					return entryErr(ce, "option %d chosen twice", c)
				}
				chosen[c] = true
			}
		}
	}
	post := func(entry, key string) error {
		if key == "" {
			return entryErr(entry, "required")
		}
		if _, ok := posts[key]; !ok {
			return entryErr(entry, "unknown post %q", key)
		}
		return nil
	}
	comments := map[string]string{} // key → post key
	for i, c := range fx.Comments {
		e := fmt.Sprintf("comments[%d]", i)
		if err := newKey(e+".key", c.Key, comments); err != nil {
			return err
		}
		if err := post(e+".post", c.Post); err != nil {
			return err
		}
		if err := member(e+".author", c.Author); err != nil {
			return err
		}
		if c.Parent != nil {
			parentPost, ok := comments[*c.Parent]
			switch {
			case !ok:
				return entryErr(e+".parent", "unknown comment %q (a parent must come before its replies)", *c.Parent)
			case parentPost != c.Post:
				return entryErr(e+".parent", "comment %q belongs to post %q, not %q", *c.Parent, parentPost, c.Post)
			}
		}
		comments[c.Key] = c.Post
	}
	reacted := map[[2]string]bool{}
	for i, r := range fx.Reactions {
		e := fmt.Sprintf("reactions[%d]", i)
		if err := post(e+".post", r.Post); err != nil {
			return err
		}
		if err := member(e+".member", r.Member); err != nil {
			return err
		}
		k := [2]string{r.Post, strings.ToLower(r.Member)}
		if reacted[k] {
			return entryErr(e, "%s has already reacted to %q", r.Member, r.Post)
		}
		reacted[k] = true
	}
	convs := map[string]bool{}
	direct := map[[2]string]string{}
	for i, c := range fx.Conversations {
		e := fmt.Sprintf("conversations[%d]", i)
		if err := newKey(e+".key", c.Key, convs); err != nil {
			return err
		}
		convs[c.Key] = true
		in := map[string]bool{}
		for j, h := range c.Participants {
			pe := fmt.Sprintf("%s.participants[%d]", e, j)
			if err := member(pe, h); err != nil {
				return err
			}
			if in[strings.ToLower(h)] {
				return entryErr(pe, "duplicate participant %q", h)
			}
			in[strings.ToLower(h)] = true
		}
		if len(c.Participants) < 2 {
			return entryErr(e+".participants", "a conversation needs at least 2 participants")
		}
		if len(c.Participants) == 2 {
			pair := [2]string{strings.ToLower(c.Participants[0]), strings.ToLower(c.Participants[1])}
			if pair[0] > pair[1] {
				pair[0], pair[1] = pair[1], pair[0]
			}
			if other, ok := direct[pair]; ok {
				return entryErr(e, "%s and %s already have a one-to-one conversation (%q)", pair[0], pair[1], other)
			}
			direct[pair] = c.Key
		}
		var last *time.Time
		for j, m := range c.Messages {
			me := fmt.Sprintf("%s.messages[%d]", e, j)
			if !in[strings.ToLower(m.Sender)] {
				return entryErr(me+".sender", "%q is not a participant", m.Sender)
			}
			if m.CreatedAt != nil {
				if last != nil && m.CreatedAt.Before(*last) {
					return entryErr(me+".created_at", "messages must be in chronological order")
				}
				last = m.CreatedAt
			}
		}
	}
	for i, l := range fx.Listings {
		e := fmt.Sprintf("listings[%d]", i)
		if err := member(e+".seller", l.Seller); err != nil {
			return err
		}
		for j, img := range l.Images {
			if err := checkURL(fmt.Sprintf("%s.images[%d].url", e, j), &img.URL); err != nil {
				return err
			}
		}
	}
	for i, j := range fx.Jobs {
		e := fmt.Sprintf("jobs[%d]", i)
		for _, u := range []struct {
			field string
			v     *string
		}{{".company.logo", j.Company.Logo}, {".company.url", j.Company.URL}, {".apply_url", j.ApplyURL}} {
			if err := checkURL(e+u.field, u.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkURL accepts nil or an absolute http(s) URL.
func checkURL(entry string, v *string) error {
	if v == nil {
		return nil
	}
	u, err := url.Parse(*v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return entryErr(entry, "not an absolute http(s) URL: %q", *v)
	}
	return nil
}

// newKey checks that key is well-formed and not yet in seen.
func newKey[V any](entry, key string, seen map[string]V) error {
	if !keyPattern.MatchString(key) {
		return entryErr(entry, "invalid key %q", key)
	}
	if _, dup := seen[key]; dup {
		return entryErr(entry, "duplicate key %q", key)
	}
	return nil
}
