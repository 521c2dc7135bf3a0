package hydrate

import (
	"context"
	"strconv"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/visibility"
)

// pageQuery runs a page query (the %s: it selects id and created_at of at
// most $2 posts for the viewer $1) and reads the live part (and, when
// withStatic, the static part) of the first $2-1 of those the viewer may
// still see, in one statement; slots is how many posts the page query chose.
//
// guard is the parameter of the token check (auth.GuardSQL). The statement
// declares the WITH items of visibility.For("$1") for the page query, which
// applies the author part of the rule to what it chooses (Page); the posts
// it chose are checked again for their own setting alone
// (visibility.Setting): the author part twice in one statement, on one
// snapshot, repeated the same answer at the price of a hash of the viewer's
// hidden members per read.
func pageQuery(withStatic Statics, pageSQL, guard string) string {
	cols, join := columns(bool(withStatic))
	return `
	WITH ` + visibility.For("$1").With() + `, page AS MATERIALIZED (` + pageSQL + `),
	head AS (SELECT id, created_at FROM page ORDER BY created_at DESC, id DESC LIMIT $2 - 1)
	SELECT ` + cols + `, (SELECT count(*) FROM page) AS slots
	  FROM head
	  JOIN posts p ON p.id = head.id
	  ` + join + `
	 WHERE ` + visibility.Setting("p", "$1") + ` AND ` + auth.GuardSQL(guard) + `
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

// pageRowsAlone runs the page statement for one page read, alone.
func pageRowsAlone(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, statics Statics, pageSQL string, args []any) ([]live, error) {
	args = append(args[:len(args):len(args)], auth.GuardArg(ctx))
	rows, err := q.QueryContext(ctx, pageStatement(statics, pageSQL, len(args)), args...)
	if err != nil {
		return nil, err
	}
	return scanLive(rows, viewerID, perPage+1, true, bool(statics))
}
