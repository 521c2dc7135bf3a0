package search

import (
	"strings"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/visibility"
)

// trigramName is the expression members_search_trgm_idx indexes.
const trigramName = "lower(m.name || ' ' || m.handle)"

// peopleQuery selects the members the viewer $8 may find (not suspended,
// and no block between them and the viewer either way: visibility.Author;
// a mute hides no one here) who match a name ($1) by word similarity over
// name and handle (trigramName), which finds them from a word's first two
// letters on and forgives typos, or contain it
// ($2, the substring pattern; null when the name is shorter than three
// characters, too short for the trigram index to serve). A handle equal to
// the name ranks first, then handles starting with it ($3, the prefix
// pattern), then by similarity (at most 1). It returns them as walk does
// (keyset $4-$6, limit $7). Its arguments reach the plan through a
// materialized CTE read by InitPlans, as in walk: with the name in sight of
// the planner, PostgreSQL plans nearly every people search anew, and the
// planning costs more than the execution (docs/performance-journal.md,
// "People search on its generic plan").
var peopleQuery = `
	WITH a AS MATERIALIZED (
	    SELECT $1::text AS name, $2::text AS contains, $3::text AS prefix,
	           $4::float8 AS after_rank, $5::timestamptz AS after_at, $6::bigint AS after_id, $7::int AS lim,
	           $8::bigint AS viewer
	), hit AS MATERIALIZED (
	    SELECT m.id, m.created_at AS at,
	           (CASE WHEN lower(m.handle) = (SELECT name FROM a) THEN 2
	                 WHEN lower(m.handle) LIKE (SELECT prefix FROM a) THEN 1 ELSE 0 END
	            + word_similarity((SELECT name FROM a), ` + trigramName + `))::float8 AS rank
	      FROM members m
	     WHERE ` + visibility.Author("m.id", "(SELECT viewer FROM a)") + `
	       AND ((SELECT name FROM a) <% ` + trigramName + ` OR ` + trigramName + ` LIKE (SELECT contains FROM a))
	)` + hitsPage

// peopleArgs are peopleQuery's arguments for viewerID and q.
func peopleArgs(viewerID int64, q Query, after *cursor.Position, limit int) []any {
	like := escapeLike(q.Name)
	args := []any{q.Name, nil, like + "%", nil, nil, nil, limit, viewerID}
	// A substring needs three characters for the trigram index to serve it.
	if len([]rune(q.Name)) >= 3 {
		args[1] = "%" + like + "%"
	}
	if after != nil {
		args[3], args[4], args[5] = after.Rank, after.Time, after.ID
	}
	return args
}

// escapeLike quotes the LIKE wildcards of s ('_' is common in handles).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
