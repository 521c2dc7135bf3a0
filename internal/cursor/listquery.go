package cursor

import (
	"strconv"
	"sync"

	"github.com/lib/pq"
)

// Lists of ids
//
// A page is chosen as a list of ids (by a keyset query), then read by those
// ids: ListQuery writes the statements that read such a list.

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
// row by primary key, with no list to walk.
type ListQuery struct {
	param   string
	extra   string // more columns of page, over the subscript i (WithColumns)
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

// WithColumns adds columns to the list page, over the array subscript i
// (e.g. an element of another array parameter), and returns q. A list with
// more columns has no statement of its own for one id. Call it before q is
// used.
func (q *ListQuery) WithColumns(extra string) *ListQuery {
	q.extra = extra
	return q
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

// SizeClass is the size class of a list of n: the next power of 4, never
// below n, up to the first past maxListClass. Statements over lists of
// another form (a batch of reads' arguments) are written by size class too,
// for the reason ListQuery is.
func SizeClass(n int) int {
	class := 1
	for class < n && class <= maxListClass {
		class *= 4
	}
	return class
}

// For returns the statement for a list of n ids.
func (q *ListQuery) For(n int) string {
	class := SizeClass(n)
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
