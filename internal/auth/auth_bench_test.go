package auth_test

import (
	"context"
	"testing"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

func BenchmarkParse(b *testing.B) {
	tok, _ := auth.Generate(auth.ScopeWrite)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := auth.Parse(tok); !ok {
			b.Fatal("rejected")
		}
	}
}

func BenchmarkHash(b *testing.B) {
	tok, _ := auth.Generate(auth.ScopeRead)
	b.ReportAllocs()
	for b.Loop() {
		auth.Hash(tok)
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := auth.Generate(auth.ScopeRead); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDerive(b *testing.B) {
	seed := []byte("socialapi-synth:1:42:read")
	b.ReportAllocs()
	for b.Loop() {
		auth.Derive(auth.ScopeRead, seed)
	}
}

// BenchmarkAuthenticate is the lookup every request makes: parse, hash,
// one indexed query (last_used_at is fresh, so no write).
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	st, tok := authenticated(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Authenticate(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecall is what a read pays instead of BenchmarkAuthenticate
// when the token was seen before (its check rides on the read's statement).
func BenchmarkRecall(b *testing.B) {
	st, tok := authenticated(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := st.Recall(tok); !ok {
			b.Fatal("not recalled")
		}
	}
}

// authenticated returns a store over a fresh database and a read token it
// has authenticated once.
func authenticated(b *testing.B) (*auth.Store, string) {
	db := pgtest.New(b)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `INSERT INTO members (handle, name) VALUES ('bench', 'Bench')`); err != nil {
		b.Fatal(err)
	}
	st := auth.NewStore(db, nil)
	_, tok, err := st.Create(ctx, auth.NewToken{Handle: "bench", Scope: auth.ScopeRead})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Authenticate(ctx, tok); err != nil {
		b.Fatal(err)
	}
	return st, tok
}
