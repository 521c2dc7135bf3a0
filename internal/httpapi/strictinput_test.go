package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// validatorWords are fragments of kin-openapi's and encoding/json's own
// messages: none may reach a client.
var validatorWords = []string{"json.Number", "float64", "allOf", "oneOf", "schema", "decode", `property "`,
	"doesn't", "Error at", "value must", "is missing", "unsupported", "nullable", "cannot", "regular expression"}

// TestStrictInput holds the body rules of strict input: a member named twice
// is 400 invalid_json at any depth; every schema violation is a 422 whose
// fields point (RFC 6901) at the member at fault, missing or not, with a
// sentence of ours; an integer is written as digits. Nothing is written.
func TestStrictInput(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	do := func(t *testing.T, path, body string) *apitest.Response {
		return env.Do(t, apitest.Request{Method: "POST", Path: path, Token: tok, Body: body})
	}
	var created struct{ Data struct{ ID int64 } }
	do(t, "/api/v1/posts", `{"body":"first"}`).JSON(t, &created)
	comments := fmt.Sprintf("/api/v1/posts/%d/comments", created.Data.ID)
	react := fmt.Sprintf("/api/v1/posts/%d/react", created.Data.ID)
	do(t, "/api/v1/conversations", `{"participants":["bob"],"body":"hi"}`).JSON(t, &created)
	messages := fmt.Sprintf("/api/v1/conversations/%d/messages", created.Data.ID)

	type field struct{ Pointer, Code, Detail string } // Detail "": not compared
	long := strings.Repeat("a", 5001)
	tests := []struct {
		name, path, body string
		status           int
		code             string
		fields           []field
	}{
		// 6. Duplicate members.
		{"duplicate", "/api/v1/posts", `{"visibility":"public","visibility":"private","body":"x"}`, 400, "invalid_json",
			[]field{{"/visibility", "duplicate", "This member appears more than once in its object."}}},
		{"duplicate required member", "/api/v1/conversations", `{"participants":["bob"],"body":"x","body":"y"}`, 400, "invalid_json",
			[]field{{"/body", "duplicate", ""}}},
		{"duplicate spelled with an escape", comments, `{"body":"x","b\u006fdy":"y"}`, 400, "invalid_json",
			[]field{{"/body", "duplicate", ""}}},
		{"duplicate in a nested object", "/api/v1/posts", `{"body":"x","link":{"a":1,"a":2}}`, 400, "invalid_json",
			[]field{{"/link/a", "duplicate", ""}}},
		{"duplicate in an object in an array", "/api/v1/conversations", `{"participants":[{"h":1},{"h":1,"h":2}],"body":"x"}`, 400, "invalid_json",
			[]field{{"/participants/1/h", "duplicate", ""}}},
		{"duplicate with ~ and /", "/api/v1/posts", `{"body":"x","a~b/c":1,"a~b/c":2}`, 400, "invalid_json",
			[]field{{"/a~0b~1c", "duplicate", ""}}},
		{"same name in sibling objects", "/api/v1/posts", `{"body":"x","z":[{"a":1},{"a":1}],"q":{"body":1}}`, 422, "validation_failed",
			[]field{{"/q", "unknown_field", ""}, {"/z", "unknown_field", ""}}},

		// 7. Details in our words.
		{"1e400 for an integer", comments, `{"body":"x","parent_id":1e400}`, 422, "validation_failed",
			[]field{{"/parent_id", "out_of_range", "Must be an integer from 1 to 9007199254740991."}}},
		{"1e400 for a string", "/api/v1/posts", `{"body":1e400}`, 422, "validation_failed",
			[]field{{"/body", "wrong_type", "Must be a string."}}},
		{"-1e400 for an integer", "/api/v1/notifications/read", `{"up_to_id":-1e400}`, 422, "validation_failed",
			[]field{{"/up_to_id", "out_of_range", ""}}},
		{"visibility not allowed (allOf)", "/api/v1/posts", `{"body":"x","visibility":"friends"}`, 422, "validation_failed",
			[]field{{"/visibility", "not_allowed", "Must be one of: public, followers, private."}}},
		{"visibility null (allOf)", "/api/v1/posts", `{"body":"x","visibility":null}`, 422, "validation_failed",
			[]field{{"/visibility", "not_allowed", ""}}},
		{"reaction not allowed", react, `{"type":"meh"}`, 422, "validation_failed",
			[]field{{"/type", "not_allowed", "Must be one of: like, love, haha, wow, sad, angry."}}},
		{"38.0 for an integer", comments, `{"body":"x","parent_id":38.0}`, 422, "validation_failed",
			[]field{{"/parent_id", "wrong_type", "Must be an integer, written without a fraction or an exponent."}}},
		{"3.8e1 for an integer", comments, `{"body":"x","parent_id":3.8e1}`, 422, "validation_failed",
			[]field{{"/parent_id", "wrong_type", ""}}},
		{"1.0 for an integer", "/api/v1/notifications/read", `{"up_to_id":1.0}`, 422, "validation_failed",
			[]field{{"/up_to_id", "wrong_type", ""}}},
		{"fraction for an integer", "/api/v1/notifications/read", `{"up_to_id":1.5}`, 422, "validation_failed",
			[]field{{"/up_to_id", "wrong_type", "Must be an integer from 1 to 9007199254740991."}}},
		{"string for an integer", comments, `{"body":"x","parent_id":"7"}`, 422, "validation_failed",
			[]field{{"/parent_id", "wrong_type", ""}}},
		{"null for an integer", comments, `{"body":"x","parent_id":null}`, 422, "validation_failed",
			[]field{{"/parent_id", "wrong_type", ""}}},
		{"below the minimum", comments, `{"body":"x","parent_id":0}`, 422, "validation_failed",
			[]field{{"/parent_id", "out_of_range", ""}}},
		{"too long", "/api/v1/posts", `{"body":"` + long + `"}`, 422, "validation_failed",
			[]field{{"/body", "too_long", "Must be at most 5000 characters."}}},
		{"empty", messages, `{"body":""}`, 422, "validation_failed",
			[]field{{"/body", "too_short", "Must not be empty."}}},
		{"pattern", "/api/v1/conversations", `{"participants":["b-b"],"body":"x"}`, 422, "validation_failed",
			[]field{{"/participants/0", "bad_format", ""}}},
		{"empty array", "/api/v1/conversations", `{"participants":[],"body":"x"}`, 422, "validation_failed",
			[]field{{"/participants", "too_short", ""}}},
		{"not an object", "/api/v1/posts", `["body"]`, 422, "validation_failed",
			[]field{{"", "wrong_type", "Must be an object."}}},
		{"null body", "/api/v1/posts", `null`, 422, "validation_failed",
			[]field{{"", "wrong_type", "Must be an object."}}},

		// 8. Exact pointers.
		{"missing member", "/api/v1/posts", `{}`, 422, "validation_failed",
			[]field{{"/body", "required", "This member is required."}}},
		{"missing members", "/api/v1/conversations", `{}`, 422, "validation_failed",
			[]field{{"/body", "required", ""}, {"/participants", "required", ""}}},
		{"missing type", react, `{}`, 422, "validation_failed",
			[]field{{"/type", "required", ""}}},
		{"member in another case", "/api/v1/posts", `{"BODY":"x"}`, 422, "validation_failed",
			[]field{{"/BODY", "unknown_field", "This member is not allowed."}, {"/body", "required", ""}}},
		{"unknown members with ~ and /", "/api/v1/posts", `{"body":"x","a/b":1,"c~d":2,"~1":3}`, 422, "validation_failed",
			[]field{{"/a~1b", "unknown_field", ""}, {"/c~0d", "unknown_field", ""}, {"/~01", "unknown_field", ""}}},
		{"several problems", "/api/v1/posts", `{"body":"","visibility":"friends","secret":"hunter2"}`, 422, "validation_failed",
			[]field{{"/body", "too_short", ""}, {"/secret", "unknown_field", ""}, {"/visibility", "not_allowed", ""}}},
	}
	before := tableCounts(t, env)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, tt.path, tt.body)
			p := resp.Problem(t)
			if resp.Status != tt.status || p.Code != tt.code {
				t.Errorf("%s: %d %s, want %d %s", tt.name, resp.Status, resp.Body, tt.status, tt.code)
				return
			}
			var got []field
			for _, f := range p.Errors {
				if f.Pointer == nil || f.Parameter != nil {
					t.Errorf("%s: field without a pointer: %s", tt.name, resp.Body)
					continue
				}
				got = append(got, field{*f.Pointer, f.Code, f.Detail})
			}
			want := append([]field(nil), tt.fields...)
			for i := range want {
				if want[i].Detail == "" && i < len(got) {
					want[i].Detail = got[i].Detail
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: fields (-want +got):\n%s", tt.name, diff)
			}
			ds := []string{p.Detail}
			for _, f := range got {
				ds = append(ds, f.Detail)
			}
			for _, d := range ds {
				for _, w := range validatorWords {
					if strings.Contains(d, w) {
						t.Errorf("%s: detail %q has the validator's words (%q)", tt.name, d, w)
					}
				}
				if d == "" || !strings.HasSuffix(d, ".") || strings.ToUpper(d[:1]) != d[:1] {
					t.Errorf("%s: detail %q is not a sentence", tt.name, d)
				}
			}
			if strings.Contains(string(resp.Body), "hunter2") || strings.Contains(string(resp.Body), "friends") {
				t.Errorf("%s: the problem echoes a value sent: %s", tt.name, resp.Body)
			}
			if tt.code == "invalid_json" && !strings.Contains(p.Detail, tt.fields[0].Pointer) {
				t.Errorf("%s: detail %q does not name %s", tt.name, p.Detail, tt.fields[0].Pointer)
			}
		})
	}
	if after := tableCounts(t, env); after != before {
		t.Errorf("rejected requests wrote: rows %s, then %s", before, after)
	}

	// The rules accept what they should: an integer as digits, one of each member.
	if resp := do(t, "/api/v1/notifications/read", `{"up_to_id":9007199254740991}`); resp.Status != 200 {
		t.Errorf("up_to_id as digits: %d %s", resp.Status, resp.Body)
	}
	var post struct{ Data struct{ Visibility string } }
	resp := do(t, "/api/v1/posts", `{"body":"x","visibility":"private"}`)
	if resp.Status != 201 {
		t.Fatalf("valid post: %d %s", resp.Status, resp.Body)
	}
	if resp.JSON(t, &post); post.Data.Visibility != "private" {
		t.Errorf("visibility = %q, want private", post.Data.Visibility)
	}
}

// tableCounts is a snapshot of the tables a rejected write could touch.
func tableCounts(t *testing.T, env *apitest.Env) string {
	t.Helper()
	var s string
	if err := env.DB.Get(&s, `SELECT concat_ws(' ', (SELECT count(*) FROM posts), (SELECT count(*) FROM comments),
		(SELECT count(*) FROM reactions), (SELECT count(*) FROM messages), (SELECT count(*) FROM conversations),
		(SELECT count(*) FROM notifications WHERE read_at IS NOT NULL))`); err != nil {
		t.Fatal(err)
	}
	return s
}
