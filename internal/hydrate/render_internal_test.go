package hydrate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
)

// renderCases are posts that exercise every member of gen.Post: text that
// JSON escapes (quotes, HTML, control and non-ASCII characters), null and
// set optional members, media, tags, mentions, polls with and without the
// viewer's choices, every reaction or none, and the author as the viewer.
func renderCases() []Post {
	link, alt, preview, avatar := "https://go.dev/?a=1&b=<2>", "a \"cat\"", "/media/p/1.jpg", "/media/avatars/7.jpg"
	like := "like"
	expires := &jsonTime{time.Date(2026, 5, 1, 10, 30, 0, 123000, time.UTC)}
	vote := func() *poll {
		p := &poll{ID: 9, Question: "Tabs <or> spaces?", Multiple: true, VotesCount: 5, VotersCount: 4, ExpiresAt: expires}
		p.Options = append(p.Options, struct {
			Index int    `json:"index"`
			Title string `json:"title"`
			Votes int    `json:"votes"`
		}{0, "Tabs & more", 3}, struct {
			Index int    `json:"index"`
			Title string `json:"title"`
			Votes int    `json:"votes"`
		}{1, "Spaces", 2})
		return p
	}
	voted := vote()
	voted.Choices = []int{0, 1}
	return []Post{
		{Static: &Static{ID: 1, Type: "text", Body: "plain", Visibility: "public", CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
			Author: apiurl.Author{ID: 7, Handle: "alice", Name: "Alice"}}, ViewerID: 8},
		{Static: &Static{ID: 2, Type: "text", Body: "quote \" backslash \\ <b>bold</b> & tab\t newline\n \u2028 émoji 🎉 \x01",
			Visibility: "followers", Link: &link, Tags: []string{"golang", "café"},
			CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 999999000, time.FixedZone("x", 3600)),
			Author:    apiurl.Author{ID: 7, Handle: "alice", Name: "Al<ice> \"A\"", AvatarURL: &avatar, Verified: true},
			Media: []media{{Kind: "image", URL: "/media/p/1.png", PreviewURL: &preview, Width: 640, Height: 480, Alt: &alt},
				{Kind: "video", URL: "https://cdn.example/v.mp4", Width: 1, Height: 2}},
			Mentions: []apiurl.MentionRef{{ID: 8, Handle: "bob"}, {ID: 9, Handle: "carol"}}},
			Comments: 3, Shares: 4, Views: 123456789, Like: 1, Love: 2, Haha: 3, Wow: 4, Sad: 5, Angry: 6,
			ViewerID: 7, ViewerReaction: &like},
		{Static: &Static{ID: 3, Type: "poll", Body: "vote", Visibility: "private", CreatedAt: time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC),
			Author: apiurl.Author{ID: 8, Handle: "bob", Name: "Bob"}}, ViewerID: 8, Poll: vote()},
		{Static: &Static{ID: 4, Type: "poll", Body: "voted", Visibility: "public", CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Author: apiurl.Author{ID: 8, Handle: "bob", Name: "Bob"}}, ViewerID: 1, Poll: voted, Like: 1 << 40},
	}
}

// eachCase runs check on every post of renderCases, each as a subtest.
func eachCase(t *testing.T, check func(t *testing.T, p Post)) {
	for _, p := range renderCases() {
		t.Run(fmt.Sprint("post ", p.ID), func(t *testing.T) { check(t, p) })
	}
}

var renderURLs = apiurl.URLs{Public: "https://social.example", API: "https://social.example/api/v1"}

// TestAppendPostMatchesPostAPI: a post appended from its rendered parts is
// the JSON encoding/json writes for PostAPI's gen.Post, member for member,
// byte for byte in every value, the first time (rendering) and the second
// (from the kept rendering), and for another base URL.
func TestAppendPostMatchesPostAPI(t *testing.T) {
	for _, u := range []apiurl.URLs{renderURLs, {Public: "http://localhost:8080", API: "http://localhost:8080/api/v1"}} {
		t.Run(u.Public, func(t *testing.T) {
			eachCase(t, func(t *testing.T, p Post) {
				want, err := json.Marshal(PostAPI(u, p))
				if err != nil {
					t.Fatal(err)
				}
				// Rendered without keeping it, then (reused) rendered and kept,
				// then from the kept rendering.
				for round := range 3 {
					if round == 1 {
						p.reused.Store(true)
					}
					got, err := AppendPost(u, nil, p)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(members(t, want), members(t, got)); diff != "" {
						t.Errorf("post %d, %s, round %d (-PostAPI +AppendPost):\n%s\n%s", p.ID, u.Public, round, diff, got)
					}
					if kept := p.rendered.Load() != nil; kept != (round > 0) {
						t.Errorf("post %d, round %d: rendering kept = %v", p.ID, round, kept)
					}
				}
			})
		})
	}
}

// TestCacheMarksReused: a Static found in a Cache is marked reused (its
// rendering is then kept); one just put is not.
func TestCacheMarksReused(t *testing.T) {
	c := NewCache(10)
	a, b := &Static{ID: 1}, &Static{ID: 2}
	c.put(map[int64]*Static{1: a, 2: b}, false)
	if a.reused.Load() || b.reused.Load() {
		t.Fatal("marked reused when put")
	}
	if found, missing := c.lookup([]int64{1, 3}); found[1] != a || len(missing) != 1 {
		t.Fatalf("lookup = %v, %v", found, missing)
	}
	if !a.reused.Load() || b.reused.Load() {
		t.Errorf("after finding 1: reused %v, %v; want true, false", a.reused.Load(), b.reused.Load())
	}
}

// members splits a JSON object into its members' raw values, so values are
// compared byte for byte (escaping included) and member order is not.
func members(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// TestPostListWritesPostList: the page PostList writes decodes to the
// gen.PostList the generated response would have encoded, with its
// headers.
func TestPostListWritesPostList(t *testing.T) {
	next, link := "abc", `<https://social.example/api/v1/feed?cursor=abc>; rel="next"`
	for _, ps := range [][]Post{nil, renderCases()} {
		t.Run(fmt.Sprintf("%d posts", len(ps)), func(t *testing.T) {
			l := PostList{URLs: renderURLs, Posts: ps, Meta: gen.ListMeta{PerPage: 20, HasMore: true, NextCursor: &next}, Link: &link}
			rec := httptest.NewRecorder()
			if err := l.VisitListFeedResponse(rec); err != nil {
				t.Fatal(err)
			}
			if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Link") != link {
				t.Errorf("status %d, headers %v", rec.Code, rec.Header())
			}
			if !strings.HasSuffix(rec.Body.String(), "}\n") {
				t.Errorf("body does not end as json.Encoder ends it: %q", rec.Body.String())
			}
			var got, want gen.PostList
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			ref, _ := json.Marshal(gen.PostList{Data: PostsAPI(renderURLs, ps), Meta: l.Meta})
			if err := json.Unmarshal(ref, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPostResponseWritesPostResponse: the single post PostResponse writes
// decodes to the gen.PostResponse the generated response would have
// encoded.
func TestPostResponseWritesPostResponse(t *testing.T) {
	eachCase(t, func(t *testing.T, p Post) {
		rec := httptest.NewRecorder()
		if err := (PostResponse{URLs: renderURLs, Post: p}).VisitGetPostResponse(rec); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Link") != "" {
			t.Errorf("status %d, headers %v", rec.Code, rec.Header())
		}
		var got, want gen.PostResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		ref, _ := json.Marshal(gen.PostResponse{Data: PostAPI(renderURLs, p)})
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("post %d (-want +got):\n%s", p.ID, diff)
		}
	})
}

// TestCreatedPostWritesCreatePost201: a new post as CreatedPost writes it
// has the status, headers and body (byte for byte) that the generated
// gen.CreatePost201JSONResponse writes.
func TestCreatedPostWritesCreatePost201(t *testing.T) {
	eachCase(t, func(t *testing.T, p Post) {
		got := httptest.NewRecorder()
		if err := (CreatedPost{URLs: renderURLs, Post: p}).VisitCreatePostResponse(got); err != nil {
			t.Fatal(err)
		}
		want := httptest.NewRecorder()
		ref := gen.CreatePost201JSONResponse{
			Body:    gen.PostResponse{Data: PostAPI(renderURLs, p)},
			Headers: gen.CreatePost201ResponseHeaders{Location: renderURLs.APIPost(p.ID)},
		}
		if err := ref.VisitCreatePostResponse(want); err != nil {
			t.Fatal(err)
		}
		if got.Code != http.StatusCreated || got.Code != want.Code {
			t.Errorf("post %d: status %d, want %d", p.ID, got.Code, want.Code)
		}
		if diff := cmp.Diff(want.Header(), got.Header()); diff != "" {
			t.Errorf("post %d headers (-generated +CreatedPost):\n%s", p.ID, diff)
		}
		data := func(body []byte) map[string]string {
			top := members(t, body)
			if len(top) != 1 {
				t.Fatalf("post %d: body members %v, want data alone", p.ID, top)
			}
			return members(t, []byte(top["data"]))
		}
		if diff := cmp.Diff(data(want.Body.Bytes()), data(got.Body.Bytes())); diff != "" {
			t.Errorf("post %d body (-generated +CreatedPost):\n%s", p.ID, diff)
		}
	})
}

// BenchmarkAppendPost: a post rendered through gen.Post and encoding/json,
// appended from a kept rendering, and appended while rendering (a Static
// read once, whose rendering is not kept).
func BenchmarkAppendPost(b *testing.B) {
	ps := renderCases()[:2]
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range ps {
				if _, err := json.Marshal(PostAPI(renderURLs, p)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	appendAll := func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 8192)
		for b.Loop() {
			for _, p := range ps {
				var err error
				if buf, err = AppendPost(renderURLs, buf[:0], p); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("unkept", appendAll)
	for _, p := range ps {
		p.reused.Store(true)
	}
	b.Run("kept", appendAll)
}
