package cursor

import "net/url"

// Keyed is an item of a keyset list: it knows its position.
type Keyed interface{ Position() Position }

// Request is one page of a list asked for: the list (Scope names it in the
// fingerprint, Self is its absolute URL without query), the filters it was
// asked with, and its paging parameters as the request gave them.
type Request struct {
	Scope   string
	Self    string
	Query   url.Values
	PerPage *int
	Cursor  *string
}

// Paginate answers r with list, which returns up to limit items after the
// position after (nil: from the start). It binds the cursor to the query,
// fetches one item more than the page holds to tell whether another page
// follows, and returns the page's items and metadata. A cursor of another
// query is an invalid_cursor error, returned before list runs.
func Paginate[T Keyed](r Request, list func(after *Position, limit int) ([]T, error)) ([]T, Page, error) {
	fp := Fingerprint(r.Scope, r.Query)
	after, err := Decode(fp, Deref(r.Cursor))
	if err != nil {
		return nil, Page{}, err
	}
	per := PerPage(r.PerPage)
	items, err := list(after, per+1)
	if err != nil {
		return nil, Page{}, err
	}
	items, next := Trim(items, per)
	return items, NewPage(per, r.Self, r.Query, fp, next), nil
}

// Trim cuts items, fetched with per+1 rows so that a further row tells that
// another page follows, to per, and returns the position of the last one
// kept when another page follows.
func Trim[T Keyed](items []T, per int) ([]T, *Position) {
	if len(items) <= per {
		return items, nil
	}
	items = items[:per]
	p := items[per-1].Position()
	return items, &p
}

// Deref is the value of an optional parameter, "" when it is absent.
func Deref[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
