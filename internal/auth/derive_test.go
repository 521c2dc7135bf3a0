package auth

import "testing"

func TestDerive(t *testing.T) {
	a := Derive(ScopeWrite, []byte("member:1"))
	if got := Derive(ScopeWrite, []byte("member:1")); got != a {
		t.Errorf("Derive is not deterministic: %q then %q", a, got)
	}
	if s, ok := Parse(a); !ok || s != ScopeWrite {
		t.Errorf("Parse(Derive(write)) = %q, %v, want write, true", s, ok)
	}
	r := Derive(ScopeRead, []byte("member:1"))
	if s, ok := Parse(r); !ok || s != ScopeRead {
		t.Errorf("Parse(Derive(read)) = %q, %v, want read, true", s, ok)
	}
	if b := Derive(ScopeWrite, []byte("member:2")); b == a {
		t.Errorf("Derive gave %q for two seeds", b)
	}
}
