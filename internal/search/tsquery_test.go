package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestTsqueryShape reads tsquery texts as PostgreSQL prints them into what
// every match must contain.
func TestTsqueryShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tsq            string
		required, some []string
		open           bool
	}{
		{``, nil, nil, false},
		{`'coffee'`, []string{"coffee"}, []string{"coffee"}, false},
		{`'morning' & 'coffee'`, []string{"morning", "coffee"}, []string{"morning"}, false},
		{`'sunset' <-> 'over' <-> 'the' <-> 'lake' & 'sunset'`, []string{"sunset", "over", "the", "lake"}, []string{"sunset"}, false},
		{`'e-mail' <-> 'e' <-> 'mail' <2> 'x'`, []string{"e-mail", "e", "mail", "x"}, []string{"e-mail"}, false},
		{`'it''s' & 'back\\slash' & 'a|b'`, []string{"it's", `back\slash`, "a|b"}, []string{"it's"}, false},
		{`'rare' | 'late'`, nil, []string{"rare", "late"}, false},
		{`'a' & 'b' | 'c' & 'd'`, nil, []string{"a", "c"}, false},
		{`'a' & 'b' | 'a' & 'c'`, []string{"a"}, []string{"a"}, false},
		{`'a' <-> 'b' | 'c'`, nil, []string{"a", "c"}, false},
		{`'medium' & !'common'`, []string{"medium"}, []string{"medium"}, false},
		{`!'common' & 'medium'`, []string{"medium"}, []string{"medium"}, false},
		{`'a' <-> 'b' & !( 'c' <-> 'd' ) & 'e'`, []string{"a", "b", "e"}, []string{"a"}, false},
		{`'a' | 'b' <-> 'c' & !'d'`, nil, []string{"a", "b"}, false},
		{`( 'a' | 'b' ) & 'c'`, []string{"c"}, []string{"c"}, false},
		{`( 'a' | 'b' ) & ( 'c' | 'd' | 'e' )`, nil, []string{"a", "b"}, false},
		{`!'common'`, nil, nil, true},
		{`!!'common'`, nil, nil, true},
		{`!'a' & !'b'`, nil, nil, true},
		{`'a' | !'b'`, nil, nil, true},
		{`!( 'a' <-> 'b' )`, nil, nil, true},
		// What websearch_to_tsquery does not print is read as open.
		{`'a':*`, nil, nil, true},
		{`'a':AB & 'b'`, nil, nil, true},
		{`'a' &`, nil, nil, true},
		{`'a`, nil, nil, true},
		{`( 'a'`, nil, nil, true},
		{`'a' <x> 'b'`, nil, nil, true},
		{`'a' 'b'`, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.tsq, func(t *testing.T) {
			got := tsqueryShape(tt.tsq)
			if got.open != tt.open || !slices.Equal(got.required, tt.required) || !slices.Equal(got.some, tt.some) {
				t.Errorf("tsqueryShape(%q) = %+v; want required %q, some %q, open %v", tt.tsq, got, tt.required, tt.some, tt.open)
			}
		})
	}
}

// TestWordsFindEveryMatch: for random search texts (words, phrases, "or",
// negations, punctuation) read by PostgreSQL, every row of random words that
// the text matches carries what Store.words says all its matches carry
// (every lexeme, or one of them), so a walk by those keys misses no match;
// and a text said to match nothing matches no row. It also counts how the
// texts were read, so that every way is tried.
func TestWordsFindEveryMatch(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	vocab := []string{"alpha", "beta", "gamma", "delta", "it's", "e-mail", "x"}
	r := rand.New(rand.NewPCG(27, 11))
	var docs []string
	for range 400 {
		var ws []string
		for range r.IntN(6) {
			ws = append(ws, vocab[r.IntN(len(vocab))])
		}
		docs = append(docs, strings.Join(ws, " "))
	}
	if _, err := db.Exec(`CREATE TABLE docs AS SELECT to_tsvector('simple', d) AS tsv FROM unnest($1::text[]) d`, pq.Array(docs)); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	read := map[string]int{}
	for i := range 600 {
		var parts []string
		for range 1 + r.IntN(4) {
			w := vocab[r.IntN(len(vocab))]
			switch r.IntN(8) {
			case 0:
				w = "-" + w
			case 1:
				w = `"` + w + " " + vocab[r.IntN(len(vocab))] + `"`
			case 2:
				w = "or"
			case 3:
				w = "-" + `"` + w + " " + vocab[r.IntN(len(vocab))] + `"`
			case 4:
				w = []string{"!!!", "--" + w, "(" + w, w + ")", "-"}[r.IntN(5)]
			}
			parts = append(parts, w)
		}
		text := strings.Join(parts, " ")
		w, err := s.words(t.Context(), Query{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		var missed int
		switch {
		case w.none:
			read["none"]++
			err = db.Get(&missed, `SELECT count(*) FROM docs WHERE tsv @@ websearch_to_tsquery('simple', $1)`, text)
		case w.walks():
			read[w.keys]++
			err = db.Get(&missed, `SELECT count(*) FROM docs WHERE tsv @@ websearch_to_tsquery('simple', $1)
				AND NOT (tsvector_to_array(tsv) `+w.keys+` $2::text[])`, text, pq.Array(w.lexemes))
		default:
			read["scan"]++
		}
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if missed > 0 {
			t.Errorf("text %d, %q (read as %+v): %d matching rows the walk would miss", i, text, w, missed)
		}
	}
	t.Logf("texts read: %v", read)
	for _, way := range []string{"none", keysAll, keysAny, "scan"} {
		if read[way] == 0 {
			t.Errorf("no text was read as %s: %v", way, read)
		}
	}
}
