// Package visibility holds the one rule that decides who may see a post, as
// a SQL fragment, so that every read path and every notification applies
// exactly the same predicate.
//
//	public    every member
//	followers the author and the author's current followers
//	private   the author only
package visibility

// Post returns a SQL boolean expression that is true when the member whose id
// is the SQL expression viewer may see the post aliased alias. Both arguments
// are SQL text written by the caller (an alias and a placeholder or column,
// e.g. Post("p", "$1") or Post("p", "pm.member_id")), never user input.
//
// It is served by follows_pkey (follower_id, followee_id).
func Post(alias, viewer string) string {
	return "(" + alias + ".visibility = 'public' OR " + alias + ".author_id = " + viewer +
		" OR (" + alias + ".visibility = 'followers' AND EXISTS (SELECT 1 FROM follows vis_f" +
		" WHERE vis_f.follower_id = " + viewer + " AND vis_f.followee_id = " + alias + ".author_id)))"
}

// Sees is Post in Go, for a post whose visibility and author were read
// earlier (search keeps matches for every caller and filters them per
// request): whether viewerID may see a post by authorID with visibility
// vis, follows telling whether viewerID now follows authorID (only asked
// of a followers-only post by someone else). TestPost holds both to the
// same table.
func Sees(vis string, authorID, viewerID int64, follows func(authorID int64) bool) bool {
	return vis == "public" || authorID == viewerID || (vis == "followers" && follows(authorID))
}
