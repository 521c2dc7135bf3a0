package search

import (
	"slices"
	"strings"
)

// How a walk finds the candidates of a text in the search_keys index of its
// kind (walkMatches): rows keyed with every lexeme of the walk's list, or
// with at least one of them.
const (
	keysAll = "@>"
	keysAny = "&&"
)

// shape is what the tsquery of a search text asks of every row it matches,
// for a look into the search_keys indexes: the lexemes all of them contain
// (required), and lexemes of which each contains at least one (some). open
// says that a match may contain none of the query's lexemes ("-tea",
// "coffee or -tea"), so no look into an index of lexemes can find all of its
// matches.
type shape struct {
	required, some []string
	open           bool
}

// tsqueryShape reads the tsquery text tsq (as PostgreSQL prints a tsquery:
// quoted lexemes between the operators |, &, <N> and !, with parentheses
// where precedence needs them) into its shape. Texts it cannot read are open,
// which is always true of a query: the search then tests each row.
//
// The rules, for a node of the query:
//   - a lexeme requires itself;
//   - a and b (&, or a phrase <N>, which asks more than &) require what
//     either requires, and each match contains one of the lexemes of some of
//     whichever is not open;
//   - a or b (|) require what both require, and each match contains one of
//     the lexemes of some of either; open when either is;
//   - not a (!) is open: it matches a row without any lexeme.
func tsqueryShape(tsq string) shape {
	p := tsqParser{s: tsq}
	if p.skipSpace(); p.i == len(p.s) {
		return shape{} // no lexeme at all: the query matches nothing
	}
	sh, ok := p.or()
	if p.skipSpace(); !ok || p.i != len(p.s) {
		return shape{open: true}
	}
	if sh.open {
		sh.required, sh.some = nil, nil
	}
	return sh
}

// tsqParser reads tsquery text by precedence: | binds least, then &, then
// the phrase operators, then !.
type tsqParser struct {
	s string
	i int
}

func (p *tsqParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// peek reports whether the text continues, after spaces, with op.
func (p *tsqParser) peek(op string) bool {
	p.skipSpace()
	return strings.HasPrefix(p.s[p.i:], op)
}

func (p *tsqParser) or() (shape, bool) { return p.chain("|", p.and, either) }

func (p *tsqParser) and() (shape, bool) { return p.chain("&", p.phrase, both) }

// chain reads next, then op and next again as long as op follows, joining
// the shapes read.
func (p *tsqParser) chain(op string, next func() (shape, bool), join func(a, b shape) shape) (shape, bool) {
	sh, ok := next()
	for ok && p.peek(op) {
		p.i += len(op)
		var b shape
		if b, ok = next(); ok {
			sh = join(sh, b)
		}
	}
	return sh, ok
}

// phrase reads a <N> b (<-> is <1>).
func (p *tsqParser) phrase() (shape, bool) {
	sh, ok := p.not()
	for ok && p.peek("<") {
		end := strings.IndexByte(p.s[p.i:], '>')
		if end < 0 || strings.Trim(p.s[p.i+1:p.i+end], "-0123456789") != "" {
			return shape{}, false
		}
		p.i += end + 1
		var b shape
		if b, ok = p.not(); ok {
			sh = both(sh, b)
		}
	}
	return sh, ok
}

func (p *tsqParser) not() (shape, bool) {
	if p.peek("!") {
		p.i++
		_, ok := p.not()
		return shape{open: true}, ok
	}
	return p.primary()
}

// primary reads a quoted lexeme or a parenthesised query. A lexeme with a
// weight or a prefix mark (not made by websearch_to_tsquery) is not read.
func (p *tsqParser) primary() (shape, bool) {
	switch {
	case p.peek("("):
		p.i++
		sh, ok := p.or()
		if !ok || !p.peek(")") {
			return shape{}, false
		}
		p.i++
		return sh, true
	case p.peek("'"):
		// '' is a quote within the lexeme, \ escapes the next byte.
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			c := p.s[p.i]
			switch {
			case c == '\\' && p.i+1 < len(p.s):
				p.i++
				c = p.s[p.i]
			case c == '\'' && p.i+1 < len(p.s) && p.s[p.i+1] == '\'':
				p.i++
			case c == '\'':
				p.i++
				if p.i < len(p.s) && p.s[p.i] == ':' {
					return shape{}, false
				}
				l := []string{b.String()}
				return shape{required: l, some: l}, true
			}
			b.WriteByte(c)
		}
	}
	return shape{}, false
}

// either is the shape of a or b.
func either(a, b shape) shape {
	return shape{required: intersect(a.required, b.required), some: union(a.some, b.some), open: a.open || b.open}
}

// both is the shape of a and b.
func both(a, b shape) shape {
	sh := shape{required: union(a.required, b.required), open: a.open && b.open}
	switch {
	case a.open:
		sh.some = b.some
	case b.open || len(a.some) <= len(b.some):
		sh.some = a.some
	default:
		sh.some = b.some
	}
	return sh
}

// union is the lexemes of a, then those of b not in a.
func union(a, b []string) []string {
	out := slices.Clip(a)
	for _, l := range b {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// intersect is the lexemes of a that are in b.
func intersect(a, b []string) []string {
	var out []string
	for _, l := range a {
		if slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}
