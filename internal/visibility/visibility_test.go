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
	q := `SELECT EXISTS (SELECT 1 FROM posts p WHERE p.id = $2 AND ` + visibility.Post("p", "$1") + `),
	             EXISTS (SELECT 1 FROM posts p WHERE p.id = $2 AND ` + visibility.PostByKey("p", "$1") + `)`
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
			var got, byKey bool
			if err := db.QueryRow(q, id[tt.viewer], post[tt.post]).Scan(&got, &byKey); err != nil {
				t.Fatal(err)
			}
			if got != tt.want || byKey != tt.want {
				t.Errorf("%s post visible to %s = %v (by key %v), want %v", tt.post, tt.viewer, got, byKey, tt.want)
			}
			follows := func(author int64) bool { return tt.viewer == "follower" && author == id["author"] }
			if got := visibility.Sees(tt.post, id["author"], id[tt.viewer], follows, nil); got != tt.want {
				t.Errorf("Sees: %s post visible to %s = %v, want %v", tt.post, tt.viewer, got, tt.want)
			}
		})
	}
}

// TestRuleWithBlocksMutesAndSuspension holds Post, PostByKey, PostInStream,
// Member, Notifies and Sees (with the hidden set HiddenCauseSQL reads) to one table of
// relations: a block hides both ways, a mute hides streams only, a
// suspension hides the author from everyone, and lifting it restores all.
func TestRuleWithBlocksMutesAndSuspension(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "author", "follower", "blocked", "blocker", "muter")
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2), ($3, $2)`, id["follower"], id["author"], id["muter"])
	db.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2), ($3, $1)`, id["author"], id["blocked"], id["blocker"])
	db.MustExec(`INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2)`, id["muter"], id["author"])
	var pub, fol int64
	db.Get(&pub, `INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'x', 'public') RETURNING id`, id["author"])
	db.Get(&fol, `INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'x', 'followers') RETURNING id`, id["author"])
	post := map[string]int64{"public": pub, "followers": fol}
	type want struct{ post, stream, member bool }
	cases := []struct {
		viewer, vis string
		want        want
	}{
		{"follower", "public", want{true, true, true}}, {"follower", "followers", want{true, true, true}},
		{"blocked", "public", want{false, false, false}}, {"blocked", "followers", want{false, false, false}},
		// The blocker sees the profile (to unblock) but none of the writing.
		{"blocker", "public", want{false, false, true}}, {"blocker", "followers", want{false, false, true}},
		{"muter", "public", want{true, false, true}}, {"muter", "followers", want{true, false, true}},
		{"author", "public", want{true, true, true}},
	}
	check := func(t *testing.T, suspended bool) {
		for _, c := range cases {
			t.Run(c.viewer+"/"+c.vis, func(t *testing.T) {
				w := c.want
				if suspended { // even to themselves: their tokens no longer authenticate anyway
					w = want{}
				}
				var got want
				q := `SELECT ` + visibility.Post("p", "$1") + `, ` + visibility.PostInStream("p", "$1") + `, ` +
					visibility.MemberRow("m", "$1") + ` FROM posts p JOIN members m ON m.id = p.author_id WHERE p.id = $2`
				if err := db.QueryRow(q, id[c.viewer], post[c.vis]).Scan(&got.post, &got.stream, &got.member); err != nil {
					t.Fatal(err)
				}
				if got != w {
					t.Errorf("post, stream, member = %+v, want %+v", got, w)
				}
				// The shared forms, in a statement that declares their WITH
				// items, and the author forms by themselves.
				var shared, author struct{ post, stream bool }
				v := visibility.For("$1")
				q = `WITH ` + v.With() + ` SELECT ` + v.Post("p") + `, ` + v.PostInStream("p") + `, ` +
					visibility.Author("p.author_id", "$1") + ` AND ` + v.Author("p.author_id") + `, ` +
					visibility.AuthorInStream("p.author_id", "$1") + ` AND ` + v.AuthorInStream("p.author_id") +
					` FROM posts p WHERE p.id = $2`
				if err := db.QueryRow(q, id[c.viewer], post[c.vis]).Scan(&shared.post, &shared.stream, &author.post, &author.stream); err != nil {
					t.Fatal(err)
				}
				if shared.post != w.post || shared.stream != w.stream {
					t.Errorf("shared post, stream = %+v, want %v, %v", shared, w.post, w.stream)
				}
				// Every case's post is one the viewer's follow lets them see,
				// so the author forms answer as the post forms do.
				if author.post != w.post || author.stream != w.stream {
					t.Errorf("author, author in stream = %+v, want %v, %v", author, w.post, w.stream)
				}
				// Notifies, both ways: the viewer told of what the author
				// did answers as the author in the viewer's stream; the
				// author told of what the viewer did, as the viewer in the
				// author's stream (only a block hides it; a suspended
				// recipient is told nothing).
				var toViewer, toAuthor, byKey bool
				q = `SELECT ` + visibility.Notifies("p.author_id", "$1") + `, ` + visibility.Notifies("$1", "p.author_id") +
					`, ` + visibility.PostByKey("p", "$1") + ` FROM posts p WHERE p.id = $2`
				if err := db.QueryRow(q, id[c.viewer], post[c.vis]).Scan(&toViewer, &toAuthor, &byKey); err != nil {
					t.Fatal(err)
				}
				if byKey != w.post {
					t.Errorf("post by key = %v, want %v (Post)", byKey, w.post)
				}
				wantToAuthor := !suspended && c.viewer != "blocked" && c.viewer != "blocker"
				if toViewer != w.stream || toAuthor != wantToAuthor {
					t.Errorf("notifies viewer, author = %v, %v, want %v, %v", toViewer, toAuthor, w.stream, wantToAuthor)
				}
				hidden := visibility.Hidden{}
				rows, err := db.Query(visibility.HiddenCauseSQL, id[c.viewer])
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var m int64
					var cause string
					if err := rows.Scan(&m, &cause); err != nil {
						t.Fatal(err)
					}
					hidden[m] = struct{}{}
				}
				rows.Close()
				follows := func(int64) bool { return c.viewer == "follower" || c.viewer == "muter" }
				if got := visibility.Sees(c.vis, id["author"], id[c.viewer], follows, hidden); got != w.stream {
					t.Errorf("Sees = %v, want %v (PostInStream)", got, w.stream)
				}
			})
		}
	}
	t.Run("active", func(t *testing.T) { check(t, false) })
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, id["author"])
	t.Run("suspended", func(t *testing.T) { check(t, true) })
	db.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, id["author"])
	t.Run("lifted", func(t *testing.T) { check(t, false) })
}
