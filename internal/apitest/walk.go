package apitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// NextLink returns the rel="next" value among a response's Link header
// fields ("" if none). Every API response also links the contract with
// rel="service-desc", so the Link header alone does not mean "has more".
func NextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		if strings.HasSuffix(v, `; rel="next"`) {
			return v
		}
	}
	return ""
}

// Walk fetches path and then every next page by following meta.next_url,
// checking on each page that has_more, next_cursor, next_url and the Link
// header agree. It returns each page's body; it fails the test after
// maxPages pages.
func (env *Env) Walk(t testing.TB, token, path string, maxPages int) [][]byte {
	t.Helper()
	var pages [][]byte
	for path != "" {
		if len(pages) == maxPages {
			t.Fatalf("walk: more than %d pages", maxPages)
		}
		resp := env.Do(t, Request{Method: "GET", Path: path, Token: token})
		if resp.Status != 200 {
			t.Fatalf("walk: GET %s: status %d: %s", path, resp.Status, resp.Body)
		}
		var page struct {
			Meta struct {
				HasMore    bool    `json:"has_more"`
				NextCursor *string `json:"next_cursor"`
				NextURL    *string `json:"next_url"`
			} `json:"meta"`
		}
		resp.JSON(t, &page)
		pages = append(pages, resp.Body)
		m := page.Meta
		link := NextLink(resp.Header)
		if m.HasMore != (m.NextCursor != nil) || m.HasMore != (m.NextURL != nil) || m.HasMore != (link != "") {
			t.Fatalf("walk: GET %s: has_more %v, next_cursor %v, next_url %v, Link %q disagree", path, m.HasMore, m.NextCursor, m.NextURL, link)
		}
		path = ""
		if m.NextURL != nil {
			if want := "<" + *m.NextURL + `>; rel="next"`; link != want {
				t.Fatalf("walk: Link = %q, want %q", link, want)
			}
			if !strings.HasPrefix(*m.NextURL, PublicURL+"/api/v1/") {
				t.Fatalf("walk: next_url %q is not under %s", *m.NextURL, PublicURL)
			}
			path = strings.TrimPrefix(*m.NextURL, PublicURL)
		}
	}
	return pages
}

// IDs decodes the ids of the items of a list body ({"data":[{"id":...}]}).
func IDs(t testing.TB, body []byte) []int64 {
	t.Helper()
	var v struct {
		Data []struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode ids: %v", err)
	}
	ids := make([]int64, len(v.Data))
	for i, d := range v.Data {
		ids[i] = d.ID
	}
	return ids
}
