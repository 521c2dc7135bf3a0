package visibility_test

import (
	"testing"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/visibility"
)

func TestPost(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "author", "follower", "stranger")
	// The author follows the stranger: following someone grants nothing.
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2), ($2, $3)`,
		id["follower"], id["author"], id["stranger"])
	post := map[string]int64{}
	for _, v := range []string{"public", "followers", "private"} {
		var pid int64
		if err := db.Get(&pid, `INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'x', $2) RETURNING id`, id["author"], v); err != nil {
			t.Fatal(err)
		}
		post[v] = pid
	}
	q := `SELECT EXISTS (SELECT 1 FROM posts p WHERE p.id = $2 AND ` + visibility.Post("p", "$1") + `)`
	tests := []struct {
		post, viewer string
		want         bool
	}{
		{"public", "author", true}, {"public", "follower", true}, {"public", "stranger", true},
		{"followers", "author", true}, {"followers", "follower", true}, {"followers", "stranger", false},
		{"private", "author", true}, {"private", "follower", false}, {"private", "stranger", false},
	}
	for _, tt := range tests {
		t.Run(tt.post+" post, "+tt.viewer, func(t *testing.T) {
			var got bool
			if err := db.Get(&got, q, id[tt.viewer], post[tt.post]); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s post visible to %s = %v, want %v", tt.post, tt.viewer, got, tt.want)
			}
			follows := func(author int64) bool { return tt.viewer == "follower" && author == id["author"] }
			if got := visibility.Sees(tt.post, id["author"], id[tt.viewer], follows, nil); got != tt.want {
				t.Errorf("Sees: %s post visible to %s = %v, want %v", tt.post, tt.viewer, got, tt.want)
			}
		})
	}
}
