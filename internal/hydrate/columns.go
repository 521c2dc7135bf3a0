package hydrate

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// liveColumnsOf selects the live part of a post from posts p, for the viewer
// (a parameter or a column; liveColumns: $1), in the order scanLive reads
// them. Only poll posts look for a poll (a poll is attached exactly when
// type is poll).
//
// Lists are built with ARRAY(subquery) in the order of an index, not with
// json_agg: PostgreSQL sets up every node of a plan at each execution, run
// or not, and an aggregate is one of the dearest to set up, a cost every
// post pays, poll or not (docs/performance-journal.md, "Lists without
// json_agg").
func liveColumnsOf(viewer string) string {
	return `
	p.id, p.created_at, p.author_id, p.comment_count, p.share_count, p.view_count,
	p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count,
	` + reactionOf(viewer) + ` AS viewer_reaction,
	CASE WHEN p.type = 'poll' THEN (SELECT json_build_object(
	            'id', pl.id, 'question', pl.question, 'multiple', pl.multiple,
	            'votes_count', pl.votes_count, 'voters_count', pl.voters_count,
	            'expires_at', pl.expires_at, 'expired', pl.expires_at IS NOT NULL AND pl.expires_at <= now(),
	            'options', to_json(ARRAY(SELECT json_build_object('index', o.position, 'title', o.title, 'votes', o.votes)
	                                       FROM poll_options o WHERE o.poll_id = pl.id ORDER BY o.position)),
	            'choices', to_json(ARRAY(SELECT v.position
	                                       FROM poll_votes v WHERE v.poll_id = pl.id AND v.member_id = ` + viewer + ` ORDER BY v.position)))
	   FROM polls pl WHERE pl.post_id = p.id) END AS poll`
}

var liveColumns = liveColumnsOf("$1")

// reactionOf is the reaction of viewer (a parameter or a column) to post p,
// read by the reactions' whole key. It was a left join once; with the viewer
// a column of each row (a coalesced batch), that join's plan looked up the
// post's reactions by post alone and kept the viewer's with a filter, which
// reads every reaction of a popular post (docs/performance-journal.md,
// "Viewer's reaction by the whole key"). Statements whose viewer is a
// parameter planned the join by the whole key, and use the subquery too, so
// that every statement reads the reaction one way.
func reactionOf(viewer string) string {
	return `(SELECT r.type FROM reactions r WHERE r.post_id = p.id AND r.member_id = ` + viewer + `)`
}

// staticColumns selects the static part of a post from posts p and members
// m (the author), in the order staticScan reads them. Mentions of members
// suspended before the post was written were never stored (package posts);
// the filter keeps the rule in one place should that change.
const staticColumns = `
	p.type, p.body, p.visibility, p.link, p.tags,
	m.id, m.handle, m.name, m.avatar_url, m.verified,
	to_json(ARRAY(SELECT json_build_object('kind', pm.kind, 'url', pm.url, 'preview_url', pm.preview_url,
	                     'width', pm.width, 'height', pm.height, 'alt', pm.alt)
	                FROM post_media pm WHERE pm.post_id = p.id ORDER BY pm.position)) AS media,
	(SELECT json_agg(json_build_object('id', mm.id, 'handle', mm.handle) ORDER BY x.position)
	   FROM post_mentions x JOIN members mm ON mm.id = x.member_id
	  WHERE x.post_id = p.id AND mm.suspended_at IS NULL) AS mentions`

// staticScan scans staticColumns into s.
type staticScan struct {
	s               *Static
	tags            pq.StringArray
	media, mentions []byte
}

// appendDest appends the scan destinations of the static columns to dest.
func (x *staticScan) appendDest(dest []any) []any {
	a := &x.s.Author
	return append(dest, &x.s.Type, &x.s.Body, &x.s.Visibility, &x.s.Link, &x.tags,
		&a.ID, &a.Handle, &a.Name, &a.AvatarURL, &a.Verified, &x.media, &x.mentions)
}

func (x *staticScan) finish() error {
	x.s.Tags = x.tags
	if len(x.media) > len("[]") { // none: "[]", left nil
		if err := json.Unmarshal(x.media, &x.s.Media); err != nil {
			return fmt.Errorf("media of post %d: %w", x.s.ID, err)
		}
	}
	if x.mentions != nil {
		if err := json.Unmarshal(x.mentions, &x.s.Mentions); err != nil {
			return fmt.Errorf("mentions of post %d: %w", x.s.ID, err)
		}
	}
	return nil
}

// live is one row of liveColumns, then (when asked for) staticColumns,
// then (pages) slots, then (coalesced reads) ord.
type live struct {
	Post
	id        int64
	createdAt time.Time
	authorID  int64
	slots     int
	ord       int // a coalesced statement's row: which read it answers (1-based)
}

// scanLive reads rows of liveColumns, followed by staticColumns when
// withStatic and by a slots column when withSlots; n is how many rows to
// expect (a capacity hint). The rows are scanned in place into the result,
// through one destination slice, rather than a copy and a slice per row.
func scanLive(rows *sql.Rows, viewerID int64, n int, withSlots, withStatic bool) ([]live, error) {
	return scanRows(rows, viewerID, n, withSlots, withStatic, false)
}

// scanRows is scanLive, followed by one more integer column (live.ord)
// when withOrd.
func scanRows(rows *sql.Rows, viewerID int64, n int, withSlots, withStatic, withOrd bool) ([]live, error) {
	defer rows.Close()
	out := make([]live, 0, n)
	dest := make([]any, 0, 28)
	var pollJSON []byte
	var st staticScan
	for rows.Next() {
		out = append(out, live{})
		l := &out[len(out)-1]
		pollJSON = nil
		dest = append(dest[:0], &l.id, &l.createdAt, &l.authorID, &l.Comments, &l.Shares, &l.Views,
			&l.Like, &l.Love, &l.Haha, &l.Wow, &l.Sad, &l.Angry, &l.ViewerReaction, &pollJSON)
		if withStatic {
			st = staticScan{s: &Static{}}
			dest = st.appendDest(dest)
		}
		if withSlots {
			dest = append(dest, &l.slots)
		}
		if withOrd {
			dest = append(dest, &l.ord)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if pollJSON != nil {
			if err := json.Unmarshal(pollJSON, &l.Poll); err != nil {
				return nil, fmt.Errorf("poll of post %d: %w", l.id, err)
			}
		}
		if withStatic {
			st.s.ID, st.s.CreatedAt = l.id, l.createdAt
			if err := st.finish(); err != nil {
				return nil, err
			}
			l.Static = st.s
		}
		l.ViewerID = viewerID
	}
	return out, rows.Err()
}

// columns returns the select list of a post read for the viewer $1 (the
// live part, and the static part too when withStatic) and the join the
// static part needs.
func columns(withStatic bool) (cols, join string) {
	if withStatic {
		return liveColumns + ", " + staticColumns, "JOIN members m ON m.id = p.author_id"
	}
	return liveColumns, ""
}
