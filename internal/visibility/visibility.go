// Package visibility holds the one rule that decides what a member may see,
// as SQL fragments (and, for search's kept matches, the same rule in Go), so
// that every read path and every notification applies exactly the same
// predicate. docs/design.md ("Visibility", "Blocks, mutes and suspension")
// says it in prose.
//
// A post by author, seen by viewer:
//
//	public    every member
//	followers the author and the author's current followers
//	private   the author only
//
// and in every case only while the author is not suspended and no block
// stands between viewer and author, in either direction. A member's profile
// is seen while the member is not suspended and does not block the viewer
// (a blocker still sees whom they block, to unblock them).
//
// Streams (home feed, discover, post search, threads, notifications) hide
// more: what the viewer's mutes name. A single post, a member's posts list
// and a profile are not streams: a mute hides nothing there.
//
// Every argument is SQL text written by the caller (an alias, a column or a
// placeholder, e.g. Post("p", "$1") or Post("p", "pm.member_id")), never
// user input.
package visibility

// Post returns a SQL boolean expression that is true when the member whose id
// is the SQL expression viewer may see the post aliased alias.
//
// It is served by follows_pkey, member_hides_pkey (blocks either way and
// mutes from the viewer's side, migration 37: one probe where blocks
// took two) and suspended_members.
func Post(alias, viewer string) string {
	return "(" + rule(alias, viewer) + " AND " + Author(alias+".author_id", viewer) + ")"
}

// PostByKey is Post for a statement that checks one post (a write's post,
// a single post's existence) for one viewer or a few: the author part as
// probes by key (the author's suspension in suspended_members_pkey, a block
// either way in member_hides_pkey), without Post's gates and hash of the
// suspended members, which cost such a statement more to set up at each
// execution than the probes they spare (docs/performance-journal.md, "The
// rule in one-row statements").
func PostByKey(alias, viewer string) string {
	return "(" + rule(alias, viewer) + " AND " + notSuspendedByKey(alias+".author_id") + " AND " +
		NotSeparated(alias+".author_id", viewer) + ")"
}

// notSuspendedByKey is true when none of the members is suspended, asked of
// suspended_members by key; members is a list of SQL expressions separated
// by commas.
func notSuspendedByKey(members string) string {
	return "NOT EXISTS (SELECT 1 FROM suspended_members vis_s WHERE vis_s.member_id IN (" + members + "))"
}

// PostInStream is Post for a stream: it also hides the posts of members the
// viewer mutes (served by mutes_pkey).
func PostInStream(alias, viewer string) string {
	return "(" + rule(alias, viewer) + " AND " + AuthorInStream(alias+".author_id", viewer) + ")"
}

// Setting is the part of Post that reads the post's own visibility setting
// alone, for a statement that applies the author part (Author, or the
// shared form's) elsewhere: once for the one author all its posts have (a
// member's posts list), or in the page query whose chosen posts it checks
// (hydrate's page statement).
func Setting(alias, viewer string) string { return rule(alias, viewer) }

// rule is the post's own visibility setting.
func rule(alias, viewer string) string {
	return "(" + alias + ".visibility = 'public' OR " + alias + ".author_id = " + viewer +
		" OR (" + alias + ".visibility = 'followers' AND EXISTS (SELECT 1 FROM follows vis_f" +
		" WHERE vis_f.follower_id = " + viewer + " AND vis_f.followee_id = " + alias + ".author_id)))"
}

// Author is true when what member author wrote (a post, a comment) may be
// seen by viewer as far as members go: author is not suspended and neither
// blocks the other. It is the whole rule for a comment's author and for a
// notification's actor.
//
// The block and mute probes sit behind a gate that is evaluated once per
// statement when viewer is a parameter (an InitPlan): the viewer has no
// block either way, the viewer mutes nobody. Most viewers pass the gates,
// and their rows then cost no probe at all. Suspension has no gate: with
// any member suspended, as on a network in service, a gate would always
// fail, and NotSuspended is a hash of the few suspended members.
func Author(author, viewer string) string {
	return "(" + NotSuspended(author) + " AND (" + unblocked(viewer) + " OR " + NotSeparated(author, viewer) + "))"
}

// AuthorInStream is Author for a stream: the viewer does not mute author
// either. Blocks and mutes are one gate (the viewer's member_hides is
// empty) and one probe (no row of it names author, whatever the cause).
func AuthorInStream(author, viewer string) string {
	return "(" + NotSuspended(author) + " AND (" + hidesNobody(viewer) + " OR " + notHidden(author, viewer) + "))"
}

// MemberRow is true when the profile of the member whose row is alias (of
// members) may be seen by viewer: the member is not suspended (the row's
// own column) and does not block viewer.
func MemberRow(alias, viewer string) string {
	return "(" + alias + ".suspended_at IS NULL AND " + notBlocking(alias+".id", viewer) + ")"
}

// notBlocking is the block part of MemberRow: member does not block viewer
// (probed only when someone blocks viewer), read from member_hides like
// every other block check.
func notBlocking(member, viewer string) string {
	return "((SELECT NOT EXISTS (SELECT 1 FROM member_hides vis_g WHERE vis_g.viewer_id = " + viewer + " AND vis_g.cause = 'blocked_by'))" +
		" OR NOT EXISTS (SELECT 1 FROM member_hides vis_b WHERE vis_b.viewer_id = " + viewer + " AND vis_b.member_id = " + member + " AND vis_b.cause = 'blocked_by'))"
}

// unblocked is the gate of NotSeparated: viewer blocks nobody and nobody
// blocks viewer.
func unblocked(viewer string) string {
	return "(SELECT NOT EXISTS (SELECT 1 FROM member_hides vis_g WHERE vis_g.viewer_id = " + viewer + " AND vis_g.cause <> 'mutes'))"
}

// hidesNobody is the gate of notHidden: no block either way and no mute of
// viewer's hides anyone from viewer.
func hidesNobody(viewer string) string {
	return "(SELECT NOT EXISTS (SELECT 1 FROM member_hides vis_g WHERE vis_g.viewer_id = " + viewer + "))"
}

// notHidden is true when neither blocks the other and viewer does not mute
// author: no row of member_hides names author for viewer.
func notHidden(author, viewer string) string {
	return "NOT EXISTS (SELECT 1 FROM member_hides vis_h WHERE vis_h.viewer_id = " + viewer + " AND vis_h.member_id = " + author + ")"
}

// NotSuspended is true when member is not suspended. The suspended members
// are read once per statement from suspended_members, a page or so that is
// rarely written (migration 38), and each row is looked up among them in
// memory, rather than probing an index per row as a correlated NOT EXISTS
// planned for few rows does (docs/performance-journal.md, "The visibility
// rule once per statement"). Read from members, where the counter updates
// keep the pages from being all-visible, they cost a heap fetch each, every
// statement. Ids are never NULL, so NOT IN is exact.
func NotSuspended(member string) string {
	return member + " NOT IN (SELECT vis_s.member_id FROM suspended_members vis_s)"
}

// NotSeparated is true when no block stands between a and b, either way:
// one probe of member_hides, which holds each block from both sides.
func NotSeparated(a, b string) string {
	return "NOT EXISTS (SELECT 1 FROM member_hides vis_b WHERE vis_b.viewer_id = " + b + " AND vis_b.member_id = " + a + " AND vis_b.cause <> 'mutes')"
}

// Blocks is true when blocker blocks blocked (one direction only). A write
// that refuses the blocker, rather than hiding the blocked member from them,
// asks this: a follow of a member one blocks is member_blocked.
func Blocks(blocker, blocked string) string {
	return "EXISTS (SELECT 1 FROM blocks vis_b WHERE vis_b.blocker_id = " + blocker + " AND vis_b.blocked_id = " + blocked + ")"
}

// Notifies is true when recipient may be notified of what actor did: the
// notification would show in recipient's list (AuthorInStream(actor,
// recipient)) and recipient is not suspended. It is written for the writes
// that notify one recipient or a few: two probes by key
// (suspended_members_pkey; member_hides_pkey, for a block either way and a
// mute), without the gates and the hash of the suspended members of the
// other forms, which cost a one-row statement more to set up at each
// execution than the probes they would spare.
func Notifies(actor, recipient string) string {
	return "(" + notSuspendedByKey(actor+", "+recipient) + " AND " + notHidden(actor, recipient) + ")"
}

// Hidden is, for one viewer, the members whose writing the rule hides in
// streams: suspended members, members separated from the viewer by a block
// and members the viewer mutes. Search reads it once per request to filter
// the matches it keeps for every caller (HiddenCauseSQL).
type Hidden map[int64]struct{}

// Has reports whether h hides author.
func (h Hidden) Has(author int64) bool {
	_, ok := h[author]
	return ok
}

// HiddenCauseSQL selects, for the viewer $1, the members Hidden holds and
// why each is hidden (column cause): 's' suspended, 'b' a block between
// the member and the viewer (either way), 'm' muted by the viewer; a member
// hidden for several causes has a row for each. A reader that keeps
// results for every caller needs the causes apart: a stream hides them
// all, a list of members (Author) all but the muted.
const HiddenCauseSQL = `
	SELECT member_id AS id, 's' AS cause FROM suspended_members
	UNION ALL SELECT member_id, CASE cause WHEN 'mutes' THEN 'm' ELSE 'b' END FROM member_hides WHERE viewer_id = $1`

// Sees is PostInStream in Go, for a post whose visibility and author were
// read earlier (search keeps matches for every caller and filters them per
// request): whether viewerID may see a post by authorID with visibility
// vis, follows telling whether viewerID now follows authorID (only asked
// of a followers-only post by someone else) and hidden what the viewer's
// streams hide. TestPost holds both to the same table.
func Sees(vis string, authorID, viewerID int64, follows func(authorID int64) bool, hidden Hidden) bool {
	if hidden.Has(authorID) {
		return false
	}
	return vis == "public" || authorID == viewerID || (vis == "followers" && follows(authorID))
}

// Shared is the rule for one viewer in a statement that applies it several
// times (a home feed page applies it to each of its three sources, then
// to the posts it hydrates): the reads that depend on the viewer alone are
// done once per statement, in the WITH items With returns, and every
// fragment of s reads them. The inline forms (Post, AuthorInStream, …)
// bring their own gates, several nodes each, and PostgreSQL sets up every
// node of a plan at each execution, run or not: four inline fragments made
// a feed page's statement about twice as many nodes as the page itself
// (docs/performance-journal.md, "Blocks, mutes and suspension").
//
// The items: vis_hidden, the members the viewer's blocks (either way) and
// mutes hide (blocked tells a block from a mute), read by one index-only
// scan of member_hides, which holds blocks and mutes from the viewer's
// side (migration 37; three scans of blocks and mutes cost a batched feed
// statement about ten buffers a viewer); vis_suspended, the suspended
// members, read from suspended_members once per statement (it does not
// depend on the viewer). Each fragment looks a row up in them in memory,
// so a row costs no index read whatever the viewer's relations.
type Shared struct{ viewer string }

// For returns the shared rule for viewer, a SQL expression (a parameter or
// a column of an outer query) the WITH items can read.
func For(viewer string) Shared { return Shared{viewer} }

// With returns the WITH items the fragments of s read ("vis_hidden,
// vis_suspended"); a statement using s declares them once, at a level
// every fragment sees.
func (s Shared) With() string {
	return `vis_hidden AS MATERIALIZED (
		    SELECT member_id AS id, cause <> 'mutes' AS blocked FROM member_hides WHERE viewer_id = ` + s.viewer + `
		), vis_suspended AS MATERIALIZED (
		    SELECT member_id AS id FROM suspended_members
		)`
}

// Post is the package's Post, reading s's WITH items.
func (s Shared) Post(alias string) string {
	return "(" + rule(alias, s.viewer) + " AND " + s.Author(alias+".author_id") + ")"
}

// PostInStream is the package's PostInStream, reading s's WITH items.
func (s Shared) PostInStream(alias string) string {
	return "(" + rule(alias, s.viewer) + " AND " + s.AuthorInStream(alias+".author_id") + ")"
}

// Author is the package's Author, reading s's WITH items.
func (s Shared) Author(author string) string {
	return "(" + author + " NOT IN (SELECT id FROM vis_suspended) AND " +
		author + " NOT IN (SELECT id FROM vis_hidden WHERE blocked))"
}

// AuthorInStream is the package's AuthorInStream, reading s's WITH items.
func (s Shared) AuthorInStream(author string) string {
	return "(" + author + " NOT IN (SELECT id FROM vis_suspended) AND " +
		author + " NOT IN (SELECT id FROM vis_hidden))"
}
