package search_test

import (
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestSearchKeysAsDefined holds search_keys (the key function of the
// *_search_keys_idx indexes, migrations 000021 and 000025) to its definition, each
// lexeme of the words prefixed with the bucket, for texts of every kind the
// parser splits differently: the indexes were built with that definition
// and are only valid while the keys stay the same.
func TestSearchKeysAsDefined(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	texts := []string{
		"", "   ", "!!! ... ???", "😀 🎉", "hello", "Hello, World! hello again",
		"#coffee #Coffee and #tea_time", "@alice met @bob_2 at https://example.com/a?b=c&d=e",
		"mail me at someone@example.org or see /usr/local/bin", "3.14 1,000 -42 2026-11-25 12:30",
		"café naïve straße 東京 Привет мир", "tab\tseparated\nlines\r\nand  double  spaces",
		"quotes 'single' \"double\" back\\slash", "a-b a_b a.b a:b a/b",
	}
	for _, text := range texts {
		for _, bucket := range []int64{0, 7, 61} {
			var got, want pq.StringArray
			var same bool
			err := db.QueryRow(`
				SELECT search_keys($1, to_tsvector('simple', $2)),
				       ARRAY(SELECT $1::text || ':' || l FROM unnest(tsvector_to_array(to_tsvector('simple', $2))) AS l),
				       search_keys($1, to_tsvector('simple', $2)) IS NOT DISTINCT FROM
				       ARRAY(SELECT $1::text || ':' || l FROM unnest(tsvector_to_array(to_tsvector('simple', $2))) AS l)`,
				bucket, text).Scan(&got, &want, &same)
			if err != nil {
				t.Fatal(err)
			}
			if !same {
				t.Errorf("search_keys(%d, %q) = %q, want %q", bucket, text, got, want)
			}
		}
	}
	// Lexemes holding what the tsvector's text form escapes (quotes and
	// backslashes, which search_keys undoes), as array_to_tsvector takes
	// them from a search's words.
	for _, words := range [][]string{{"it's"}, {"'"}, {"''", "a''b"}, {`\`, `a\b`, `\'`}, {"o'neil", `c:\dir`, "x", "'quoted'"}} {
		var same bool
		if err := db.QueryRow(`
			WITH w AS (SELECT array_to_tsvector($1::text[]) AS w)
			SELECT search_keys(3, w) IS NOT DISTINCT FROM ARRAY(SELECT '3:' || l FROM unnest(tsvector_to_array(w)) AS l) FROM w`,
			pq.Array(words)).Scan(&same); err != nil || !same {
			t.Errorf("search_keys(3, array_to_tsvector(%q)): same = %v, %v", words, same, err)
		}
	}
	// The query side: words from a search text's tsquery, and none at all.
	var same bool
	if err := db.QueryRow(`
		WITH q AS (SELECT array_to_tsvector(ARRAY(SELECT DISTINCT l FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS l)) AS w)
		SELECT search_keys(5, w) IS NOT DISTINCT FROM ARRAY(SELECT '5:' || l FROM unnest(tsvector_to_array(w)) AS l)
		   AND search_keys(5, NULL) IS NULL FROM q`, `"warm coffee" -tea or #market`).Scan(&same); err != nil || !same {
		t.Errorf("query words: same = %v, %v", same, err)
	}
}

// TestSearchKeysInlined: PostgreSQL inlines search_keys into the statements
// and index expressions that call it. It does not inline an IMMUTABLE SQL
// function whose body calls one that is not immutable (array_to_string is
// STABLE): every statement writing a post then set the function up anew to
// key the row for its index (migration 000025), about 7 % of PostgreSQL's
// CPU in a post's insert.
func TestSearchKeysInlined(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	var plan []string
	if err := db.Select(&plan, `EXPLAIN (VERBOSE, COSTS OFF) SELECT search_keys(post_search_bucket(id), search_tsv) FROM posts`); err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); strings.Contains(p, "search_keys(") || strings.Contains(p, "post_search_bucket(") {
		t.Errorf("search_keys is not inlined:\n%s", p)
	}
}
