package hydrate

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
)

// A list of posts is the hot answer of the API (home feed, discover, a
// member's posts), and most of each post never changes: body, author,
// media, tags, mentions, time and their URLs. Rendering them through
// gen.Post and encoding/json on every request was about a sixth of the
// server's CPU on a feed page (reflection, string escaping, URL building),
// so a post's static members are rendered once, kept beside its Static (so
// in the Cache, once the post is read a second time), and each page only
// appends the members that change: counts, poll, reaction counts and the
// viewer's part.
//
// The bytes are those encoding/json writes for gen.Post (HTML-safe
// escaping included), in another member order; TestAppendPostMatchesPostAPI
// checks every member against PostAPI.

// rendered is a Static's members rendered for one public base URL.
type rendered struct {
	public string
	json   []byte // `"body":…,"visibility":…`: no braces, no trailing comma
}

// appendStaticOnce appends s's static members rendered for u: the kept
// rendering when s has one for u's base URL, else a fresh one, which is
// kept (a copy) only on a Static found in a Cache (Static.reused).
func appendStaticOnce(u apiurl.URLs, b []byte, s *Static) []byte {
	if r := s.rendered.Load(); r != nil && r.public == u.Public {
		return append(b, r.json...)
	}
	start := len(b)
	b = appendStatic(u, b, s)
	if s.reused.Load() {
		s.rendered.Store(&rendered{public: u.Public, json: append([]byte(nil), b[start:]...)})
	}
	return b
}

// appendStatic appends s's static members of gen.Post (body, created_at,
// id, link, media, mentions, tags, type, url, user, visibility: the
// members, their order and their bytes encoding/json writes for the
// gen.Post that PostAPI builds), without braces. Written by hand: on
// posts read once (a member's older posts, which miss the Cache), encoding
// them through gen types and reflection was a sixth of the server's CPU.
func appendStatic(u apiurl.URLs, b []byte, s *Static) []byte {
	b = append(b, `"body":`...)
	b = appendJSONString(b, s.Body)
	b = append(b, `,"created_at":"`...)
	b = apitime.New(s.CreatedAt).AppendFormat(b, apitime.Layout)
	b = append(b, `","id":`...)
	b = strconv.AppendInt(b, s.ID, 10)
	b = append(b, `,"link":`...)
	b = appendJSONStringPtr(b, s.Link)
	b = append(b, `,"media":[`...)
	for i, m := range s.Media {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"alt":`...)
		b = appendJSONStringPtr(b, m.Alt)
		b = append(b, `,"height":`...)
		b = strconv.AppendInt(b, int64(m.Height), 10)
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, m.Kind)
		b = append(b, `,"preview_url":`...)
		b = appendMediaURL(u, b, m.PreviewURL)
		b = append(b, `,"url":`...)
		b = appendMediaURL(u, b, &m.URL)
		b = append(b, `,"width":`...)
		b = strconv.AppendInt(b, int64(m.Width), 10)
		b = append(b, '}')
	}
	b = append(b, `],"mentions":[`...)
	for i, m := range s.Mentions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"handle":`...)
		b = appendJSONString(b, m.Handle)
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, m.ID, 10)
		b = append(b, `,"url":`...)
		b = appendJSONParts(b, u.Public, apiurl.ProfilePath, m.Handle)
		b = append(b, '}')
	}
	b = append(b, `],"tags":[`...)
	for i, t := range s.Tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, t)
		b = append(b, `,"url":`...)
		b = appendJSONParts(b, u.Public, apiurl.TagPath, url.PathEscape(t)) // as apiurl.URLs.Tag
		b = append(b, '}')
	}
	b = append(b, `],"type":`...)
	b = appendJSONString(b, s.Type)
	b = append(b, `,"url":`...)
	var id [20]byte
	b = appendJSONParts(b, u.Public, apiurl.ProfilePath, s.Author.Handle, apiurl.PostsPath, string(strconv.AppendInt(id[:0], s.ID, 10)))
	a := s.Author
	b = append(b, `,"user":{"avatar":`...)
	b = appendMediaURL(u, b, a.AvatarURL)
	b = append(b, `,"handle":`...)
	b = appendJSONString(b, a.Handle)
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, a.Name)
	b = append(b, `,"url":`...)
	b = appendJSONParts(b, u.Public, apiurl.ProfilePath, a.Handle)
	b = append(b, `,"verified":`...)
	b = strconv.AppendBool(b, a.Verified)
	b = append(b, `},"visibility":`...)
	return appendJSONString(b, s.Visibility)
}

// appendMediaURL appends u.MediaPtr(path) as appendJSONStringPtr does.
func appendMediaURL(u apiurl.URLs, b []byte, path *string) []byte {
	if path == nil {
		return append(b, "null"...)
	}
	return appendJSONParts(b, u.MediaBase(*path), *path)
}

// AppendPost appends p as the JSON object of gen.Post (what PostAPI
// renders) to b.
func AppendPost(u apiurl.URLs, b []byte, p Post) ([]byte, error) {
	b = appendStaticOnce(u, append(b, '{'), p.Static)
	b = append(b, `,"counts":{"comments":`...)
	b = strconv.AppendInt(b, p.Comments, 10)
	b = append(b, `,"reactions":`...)
	b = strconv.AppendInt(b, p.Like+p.Love+p.Haha+p.Wow+p.Sad+p.Angry, 10)
	b = append(b, `,"shares":`...)
	b = strconv.AppendInt(b, p.Shares, 10)
	b = append(b, `,"views":`...)
	b = strconv.AppendInt(b, p.Views, 10)
	b = append(b, `},"poll":`...)
	if p.Poll == nil {
		b = append(b, "null"...)
	} else {
		pj, err := json.Marshal(pollAPI(p.Poll))
		if err != nil {
			return b, err
		}
		b = append(b, pj...)
	}
	for _, c := range [...]struct {
		key string
		n   int64
	}{
		{`,"reaction_counts":{"angry":`, p.Angry}, {`,"haha":`, p.Haha}, {`,"like":`, p.Like},
		{`,"love":`, p.Love}, {`,"sad":`, p.Sad}, {`,"wow":`, p.Wow},
	} {
		b = append(b, c.key...)
		b = strconv.AppendInt(b, c.n, 10)
	}
	b = append(b, `},"viewer":{"can_delete":`...)
	b = strconv.AppendBool(b, p.Author.ID == p.ViewerID)
	b = append(b, `,"reaction":`...)
	if p.ViewerReaction == nil {
		b = append(b, "null"...)
	} else {
		// A reaction type is one of six lowercase words: nothing to escape.
		b = append(b, '"')
		b = append(b, *p.ViewerReaction...)
		b = append(b, '"')
	}
	return append(b, "}}"...), nil
}

// PostList answers a list operation whose 200 body is gen.PostList (the
// home feed, discover, a member's posts) from the posts' rendered parts,
// with the headers the generated response would set.
type PostList struct {
	URLs  apiurl.URLs
	Posts []Post
	Meta  gen.ListMeta
	Link  *string
}

// VisitListFeedResponse implements gen.ListFeedResponseObject.
func (l PostList) VisitListFeedResponse(w http.ResponseWriter) error { return l.write(w) }

// VisitListUserPostsResponse implements gen.ListUserPostsResponseObject.
func (l PostList) VisitListUserPostsResponse(w http.ResponseWriter) error { return l.write(w) }

// pageBuffers keeps page buffers between requests; a buffer starts large
// enough for a page of 20 typical posts, so most pages never grow it.
var pageBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

func (l PostList) write(w http.ResponseWriter) error {
	return writeOK(w, l.Link, func(b []byte) ([]byte, error) {
		b = append(b, `{"data":[`...)
		var err error
		for i, p := range l.Posts {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendPost(l.URLs, b, p); err != nil {
				return b, err
			}
		}
		meta, err := json.Marshal(l.Meta)
		if err != nil {
			return b, err
		}
		b = append(b, `],"meta":`...)
		b = append(b, meta...)
		return append(b, '}'), nil
	})
}

// PostResponse answers GetPost (a gen.PostResponse body) from the post's
// rendered parts.
type PostResponse struct {
	URLs apiurl.URLs
	Post Post
}

// VisitGetPostResponse implements gen.GetPostResponseObject.
func (r PostResponse) VisitGetPostResponse(w http.ResponseWriter) error {
	return writeOK(w, nil, postBody(r.URLs, r.Post))
}

// postBody appends the gen.PostResponse body of p: {"data": the post}.
func postBody(u apiurl.URLs, p Post) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) {
		b, err := AppendPost(u, append(b, `{"data":`...), p)
		return append(b, '}'), err
	}
}

// CreatedPost answers CreatePost (201, a gen.PostResponse body, the post's
// Location) from the post's rendered parts, as PostResponse answers
// GetPost: encoding/json costs a visible share of the server's CPU for a new
// post (docs/performance-journal.md, "Rendering pages by hand").
type CreatedPost struct {
	URLs apiurl.URLs
	Post Post
}

// VisitCreatePostResponse implements gen.CreatePostResponseObject.
func (r CreatedPost) VisitCreatePostResponse(w http.ResponseWriter) error {
	w.Header().Set("Location", r.URLs.APIPost(r.Post.ID))
	return writeJSON(w, http.StatusCreated, nil, postBody(r.URLs, r.Post))
}

// writeOK answers 200 with the JSON body that body appends (to a pooled
// buffer) and a newline, as json.Encoder ends what it encodes, with a Link
// header when link is set.
func writeOK(w http.ResponseWriter, link *string, body func([]byte) ([]byte, error)) error {
	return writeJSON(w, http.StatusOK, link, body)
}

// writeJSON is writeOK with the status given.
func writeJSON(w http.ResponseWriter, status int, link *string, body func([]byte) ([]byte, error)) error {
	bp := pageBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			pageBuffers.Put(bp)
		}
	}()
	b, err := body((*bp)[:0])
	*bp = b
	if err != nil {
		return err
	}
	b = append(b, '\n')
	*bp = b
	w.Header()["Content-Type"] = jsonContentType[:1:1]
	if link != nil {
		w.Header().Set("Link", *link)
	}
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// jsonContentType is the Content-Type of every body written here, one
// value shared by every response: a slice whose capacity is its length, so
// Set replaces it and Add copies it.
var jsonContentType = []string{"application/json"}
