package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// clock is a settable now for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRecall(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pgtest.Members(t, db, "alice")
	clk := &clock{t: time.Now()}
	st := auth.NewStore(db, clk.now)
	expires := clk.now().Add(time.Hour)
	tk, tok, err := st.Create(ctx, auth.NewToken{Handle: "alice", Scope: auth.ScopeWrite, ExpiresAt: &expires})
	if err != nil {
		t.Fatal(err)
	}

	if _, ok := st.Recall(tok); ok {
		t.Fatal("recalled a token never authenticated")
	}
	full, err := st.Authenticate(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if full.Provisional() {
		t.Error("Authenticate's principal is provisional")
	}
	p, ok := st.Recall(tok)
	if !ok {
		t.Fatal("not recalled after Authenticate")
	}
	if !p.Provisional() || p.MemberID != full.MemberID || p.TokenID != tk.ID || p.Scope != auth.ScopeWrite || p.Handle != "alice" {
		t.Errorf("recalled %+v, want a provisional copy of %+v", p, full)
	}

	// Confirming one request's principal confirms that request only.
	ctx1 := auth.WithPrincipal(ctx, p)
	if id, guarded := auth.Guard(ctx1); !guarded || id != tk.ID {
		t.Errorf("Guard = %d, %v; want %d, true", id, guarded, tk.ID)
	}
	auth.Confirm(ctx1)
	if got, _ := auth.FromContext(ctx1); got.Provisional() {
		t.Error("still provisional after Confirm")
	}
	if _, guarded := auth.Guard(ctx1); guarded {
		t.Error("a confirmed principal is still guarded")
	}
	if p2, _ := st.Recall(tok); !p2.Provisional() {
		t.Error("a later recall came back confirmed")
	}
	if _, guarded := auth.Guard(auth.WithPrincipal(ctx, full)); guarded {
		t.Error("an authenticated principal is guarded")
	}

	// last_used_at is due to be written again: the token is still
	// recalled, and the write follows in the background, to api_token_uses
	// alone (the api_tokens row keeps its version).
	version := tokenRowVersion(t, db, tk.ID)
	clk.add(5*time.Minute + time.Second)
	due := clk.now()
	if _, ok := st.Recall(tok); !ok {
		t.Error("not recalled when last_used_at is due")
	}
	clk.add(time.Second)
	if _, ok := st.Recall(tok); !ok {
		t.Error("not recalled after its touch was scheduled")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var used time.Time
		if err := db.GetContext(ctx, &used, `SELECT last_used_at FROM api_token_uses WHERE token_id = $1`, tk.ID); err != nil {
			t.Fatal(err)
		}
		if d := used.Sub(due); d >= -time.Microsecond && d <= time.Microsecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("last_used_at %v, want %v (the recall's touch)", used, due)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := tokenRowVersion(t, db, tk.ID); after != version {
		t.Errorf("the touch changed the api_tokens row: version %s, then %s", version, after)
	}

	// Expired by now: never recalled.
	clk.add(time.Hour)
	if _, ok := st.Recall(tok); ok {
		t.Error("recalled an expired token")
	}
}

// A token Authenticate refuses is forgotten.
func TestRecallForgetsRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pgtest.Members(t, db, "alice")
	st := auth.NewStore(db, nil)
	for _, c := range []struct {
		name   string
		refuse string
		code   apperr.Code
	}{
		{"revoked", `UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, apperr.TokenRevoked},
		{"member suspended", `UPDATE members SET suspended_at = now() WHERE id = (SELECT member_id FROM api_tokens WHERE id = $1)`, apperr.AccountSuspended},
		{"deleted", `DELETE FROM api_tokens WHERE id = $1`, apperr.InvalidToken},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := db.ExecContext(ctx, `UPDATE members SET suspended_at = NULL`); err != nil {
				t.Fatal(err)
			}
			tk, tok, err := st.Create(ctx, auth.NewToken{Handle: "alice", Scope: auth.ScopeRead})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, tok); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, c.refuse, tk.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, tok); !apperr.Is(err, c.code) {
				t.Fatalf("Authenticate: %v, want %s", err, c.code)
			}
			if _, ok := st.Recall(tok); ok {
				t.Error("still recalled after being refused")
			}
		})
	}
}
