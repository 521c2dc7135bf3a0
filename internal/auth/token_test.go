package auth

import "testing"

func TestGenerateParse(t *testing.T) {
	for _, s := range []Scope{ScopeRead, ScopeWrite} {
		t.Run(string(s), func(t *testing.T) {
			tok, err := Generate(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(tok) != TokenLength {
				t.Errorf("len(Generate(%s)) = %d, want %d", s, len(tok), TokenLength)
			}
			got, ok := Parse(tok)
			if !ok || got != s {
				t.Errorf("Parse(%q) = %q, %v, want %q, true", tok, got, ok, s)
			}
			// One changed character breaks the checksum.
			b := []byte(tok)
			if b[10] == 'a' {
				b[10] = 'b'
			} else {
				b[10] = 'a'
			}
			if _, ok := Parse(string(b)); ok {
				t.Errorf("Parse(%q) accepted a corrupted token", b)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	good, _ := Generate(ScopeWrite)
	for _, tok := range []string{"", "snw_", good + "x", good[:len(good)-1], "xxx_" + good[4:], good[:20] + "!" + good[21:], good[:20] + "é" + good[22:]} {
		t.Run(tok, func(t *testing.T) {
			if _, ok := Parse(tok); ok {
				t.Errorf("Parse(%q) = ok, want rejected", tok)
			}
		})
	}
}

func TestScopeAllows(t *testing.T) {
	tests := []struct {
		have, need Scope
		want       bool
	}{
		{ScopeRead, ScopeRead, true}, {ScopeRead, ScopeWrite, false},
		{ScopeWrite, ScopeRead, true}, {ScopeWrite, ScopeWrite, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.have)+" allows "+string(tt.need), func(t *testing.T) {
			if got := tt.have.Allows(tt.need); got != tt.want {
				t.Errorf("%s.Allows(%s) = %v, want %v", tt.have, tt.need, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	good, _ := Generate(ScopeRead)
	f.Add(good)
	f.Add("snw_")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		if s, ok := Parse(tok); ok && s != ScopeRead && s != ScopeWrite {
			t.Fatalf("Parse(%q) returned scope %q", tok, s)
		}
	})
}
