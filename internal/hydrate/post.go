package hydrate

import (
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/socialnet/socialapi/internal/apiurl"
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
	Author     apiurl.Author
	Media      []media
	Mentions   []apiurl.MentionRef

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

// jsonTime is a timestamptz rendered by to_json (any offset, maybe fractions).
type jsonTime struct{ time.Time }

func (t *jsonTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = p
	return nil
}
