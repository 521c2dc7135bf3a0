// Package cursor encodes keyset pagination positions as opaque strings bound
// to the query that produced them, builds list metadata (meta, next_url,
// Link) the same way for every list, and writes the statements that read a
// page chosen as a list of ids (ListQuery).
package cursor

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/socialnet/socialapi/internal/apperr"
)

// MaxLen bounds an encoded cursor (the spec's maxLength).
const MaxLen = 512

// Position is the last item of a page: its sort key and id. Rank is used by
// relevance-ordered lists.
type Position struct {
	Time time.Time
	ID   int64
	Rank float64
	Num  int64 // a numeric sort key (e.g. a price) when the list is ordered by one
}

type wire struct {
	T int64   `json:"t,omitempty"` // unix microseconds
	I int64   `json:"i"`
	R float64 `json:"r,omitempty"`
	N int64   `json:"n,omitempty"`
	Q string  `json:"q"` // fingerprint of the query the cursor belongs to
}

// Fingerprint identifies a query by its filters (not per_page or cursor), so
// a cursor reused with other filters is refused.
func Fingerprint(scope string, filters url.Values) string {
	keys := make([]string, 0, len(filters))
	for k := range filters {
		if k == "cursor" || k == "per_page" {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(scope)
	for _, k := range keys {
		b.WriteString("&" + k + "=" + strings.Join(filters[k], ","))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}

// Encode returns the opaque cursor for p within the query fingerprint fp.
func Encode(fp string, p Position) string {
	w := wire{I: p.ID, R: p.Rank, N: p.Num, Q: fp}
	if !p.Time.IsZero() {
		w.T = p.Time.UnixMicro()
	}
	b, _ := json.Marshal(w)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode parses a cursor made by Encode for the same query. An empty cursor
// means the first page (nil, nil).
func Decode(fp, s string) (*Position, error) {
	if s == "" {
		return nil, nil
	}
	bad := func(detail string) error {
		return &apperr.Error{Code: apperr.InvalidCursor, Detail: detail,
			Fields: []apperr.FieldError{{Parameter: "cursor", Code: apperr.FieldInvalidCursor, Detail: detail}}}
	}
	if len(s) > MaxLen {
		return nil, bad("The cursor is not valid.")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad("The cursor is not valid.")
	}
	var w wire
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil || w.I < 1 {
		return nil, bad("The cursor is not valid.")
	}
	if w.Q != fp {
		return nil, bad("The cursor belongs to a different query; start again without it.")
	}
	p := &Position{ID: w.I, Rank: w.R, Num: w.N}
	if w.T != 0 {
		// Every list's sort time is stored in whole seconds (migrations
		// 000027, 000028); a cursor issued before names its item by the
		// time it had then, with a fraction: truncated as the item's time
		// was, it names the item where it now is, and the next page goes
		// on from there in the list's order.
		p.Time = time.UnixMicro(w.T).UTC().Truncate(time.Second)
	}
	return p, nil
}

// Page is what a list handler needs to render meta and the Link header.
type Page struct {
	PerPage    int
	HasMore    bool
	NextCursor *string
	NextURL    *string
}

// Link returns the value of the Link header, or nil on the last page.
func (p Page) Link() *string {
	if p.NextURL == nil {
		return nil
	}
	v := "<" + *p.NextURL + `>; rel="next"`
	return &v
}

// NewPage builds the page metadata. self is the absolute URL of the list
// (without query); query holds the original query parameters; next is the
// position of the last item when there are more.
func NewPage(perPage int, self string, query url.Values, fp string, next *Position) Page {
	p := Page{PerPage: perPage}
	if next == nil {
		return p
	}
	c := Encode(fp, *next)
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("cursor", c)
	q.Set("per_page", strconv.Itoa(perPage))
	u := self + "?" + q.Encode()
	p.HasMore, p.NextCursor, p.NextURL = true, &c, &u
	return p
}

// PerPage resolves the per_page parameter (the spec bounds it to 1..50).
func PerPage(v *int) int {
	if v == nil {
		return DefaultPerPage
	}
	return *v
}

// DefaultPerPage is the page size when per_page is absent.
const DefaultPerPage = 20

// String renders a position for logs.
func (p Position) String() string {
	return fmt.Sprintf("(%s, %d)", p.Time.Format(time.RFC3339Nano), p.ID)
}
