package pgtest

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/members"
)

// Members creates a member for each handle (named after it) and returns
// their ids by handle.
func Members(t testing.TB, db *sqlx.DB, handles ...string) map[string]int64 {
	t.Helper()
	ids := make(map[string]int64, len(handles))
	for _, h := range handles {
		m, err := members.CreateTx(context.Background(), db, members.New{Handle: h, Name: h})
		if err != nil {
			t.Fatalf("pgtest: create member %s: %v", h, err)
		}
		ids[h] = m.ID
	}
	return ids
}
