package synth

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/socialnet/socialapi/internal/richtext"
)

// Post types, as indexes of kindNames.
const (
	kindText = iota
	kindPhoto
	kindVideo
	kindLink
	kindPoll
)

var (
	kindNames     = [...]string{"text", "photo", "video", "link", "poll"}
	reactionNames = [...]string{"like", "love", "haha", "wow", "sad", "angry"}
	reactionCum   = [...]float64{0.55, 0.75, 0.85, 0.91, 0.96, 1}
	pollOptions   = [][]string{
		{"Yes", "No"}, {"Yes", "No", "Maybe"}, {"Tabs", "Spaces"}, {"Coffee", "Tea", "Neither"},
		{"Morning", "Afternoon", "Evening", "Night"}, {"Cats", "Dogs"}, {"Beach", "Mountains", "City"},
		{"Books", "Films", "Games", "Music"}, {"Agree", "Disagree", "Not sure"},
	}
)

// postSkeleton draws who posts when: a log-normal activity per member, a
// year of timestamps, ids in time order; then each post's visibility (mostly
// its author's default), type (30 % with media, 2 % polls, 8 % links) and
// how much attention it gets (grows with the author's followers).
func (g *gen) postSkeleton() {
	r := newRNG(g.cfg.Seed, streamPostTimes)
	act := make([]float64, g.n+1)
	total := 0.0
	for id := 1; id <= g.n; id++ {
		act[id] = r.lognormal(0, 1.1)
		total += act[id]
	}
	type slot struct {
		t      int64
		author int32
	}
	slots := make([]slot, 0, g.sc.Posts+g.sc.Posts/50)
	yearAgo := g.now - 365*day
	g.activity(act)
	for id := 1; id <= g.n; id++ {
		c := r.poisson(float64(g.sc.Posts) * act[id] / total)
		from, until := max(yearAgo, g.created[id]+hour), min(g.now-60_000_000, g.lastUsed[id])
		for range c {
			slots = append(slots, slot{t: r.between(from, until), author: int32(id)})
		}
	}
	slices.SortFunc(slots, func(a, b slot) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.author, b.author))
	})
	p := len(slots)
	g.pAuthor, g.pTime = make([]int32, p+1), make([]int64, p+1)
	g.pVis, g.pKind = make([]uint8, p+1), make([]uint8, p+1)
	g.pWeight = make([]float32, p+1)
	g.pReacts, g.pComments = make([][6]int32, p+1), make([]int32, p+1)
	pr := newRNG(g.cfg.Seed, streamPost)
	for i, s := range slots {
		id := i + 1
		g.pAuthor[id], g.pTime[id] = s.author, s.t
		pr.reseed(int64(id))
		v := pr.Float64()
		switch g.defVis[s.author] {
		case visPublic:
			g.pVis[id] = pick3(v, 0.85, 0.97)
		case visFollowers:
			g.pVis[id] = [3]uint8{visFollowers, visPublic, visPrivate}[pick3(v, 0.70, 0.95)]
		default:
			g.pVis[id] = [3]uint8{visPrivate, visFollowers, visPublic}[pick3(v, 0.60, 0.90)]
		}
		switch k := pr.Float64(); {
		case k < 0.02:
			g.pKind[id] = kindPoll
		case k < 0.07:
			g.pKind[id] = kindVideo
		case k < 0.32:
			g.pKind[id] = kindPhoto
		case k < 0.40:
			g.pKind[id] = kindLink
		}
		w := math.Pow(1+float64(len(g.followers[s.author])), 0.75) * pr.lognormal(0, 0.9)
		switch {
		case g.pVis[id] == visPrivate:
			w = 0
		case g.pVis[id] == visFollowers:
			w *= 0.6
			if len(g.followers[s.author]) == 0 {
				w = 0
			}
		}
		g.pWeight[id] = float32(w)
	}
}

func pick3(v, a, b float64) uint8 {
	switch {
	case v < a:
		return 0
	case v < b:
		return 1
	}
	return 2
}

// audience appends up to n distinct members who may see post p, never its
// author: for a public post mostly the author's followers, partly anyone;
// for a followers-only post, followers.
func (g *gen) audience(r *rng, p, n int, out []int32) []int32 {
	k := len(out)
	out = g.drawAudience(r, p, n, out)
	a := g.pAuthor[p]
	kept := slices.DeleteFunc(out[k:], func(m int32) bool { return g.separated(a, m) })
	return out[:k+len(kept)]
}

// drawAudience is audience before a block between the author and a member
// takes the member out.
func (g *gen) drawAudience(r *rng, p, n int, out []int32) []int32 {
	a := g.pAuthor[p]
	fol := g.followers[a]
	if g.pVis[p] == visFollowers {
		return g.pk.fromPool(r, fol, min(n, len(fol)), a, out)
	}
	if g.pVis[p] != visPublic {
		return out
	}
	n = min(n, g.n/2)
	if n*4 >= g.n {
		return g.pk.fromPool(r, g.all, n, a, out)
	}
	seen := g.pk.seen
	clear(seen)
	for tries := 0; n > 0 && tries < 30*n+30; tries++ {
		var m int32
		if len(fol) > 0 && r.chance(0.7) {
			m = fol[r.IntN(len(fol))]
		} else {
			m = int32(1 + r.IntN(g.n))
		}
		if m == a {
			continue
		}
		if _, dup := seen[m]; dup {
			continue
		}
		seen[m] = struct{}{}
		out = append(out, m)
		n--
	}
	return out
}

// after returns a time after t, exponentially distributed with the given
// mean, never after now.
func (g *gen) after(r *rng, t int64, mean float64) int64 {
	return min(g.now, t+1+int64(r.ExpFloat64()*mean))
}

// loadReactions streams ~Scale.Reactions reactions, each post's share
// proportional to its weight, and counts them per post and type for the
// posts' counters.
func (g *gen) loadReactions(load loader) error {
	r := newRNG(g.cfg.Seed, streamReactions)
	total := 0.0
	for _, w := range g.pWeight {
		total += float64(w)
	}
	scale := float64(g.sc.Reactions) / total
	g.reactScale = scale
	var who []int32
	cols := []string{"post_id", "member_id", "type", "created_at", "updated_at"}
	return load("reactions", cols, func(w *rowWriter) error {
		for p := 1; p < len(g.pAuthor); p++ {
			if g.pWeight[p] == 0 {
				continue
			}
			r.reseed(int64(p))
			who = g.audience(r, p, r.poisson(scale*float64(g.pWeight[p])), who[:0])
			for _, m := range who {
				v, k := r.Float64(), 0
				for v >= reactionCum[k] && k < 5 {
					k++
				}
				t := g.after(r, g.pTime[p], float64(8*hour))
				w.int(int64(p)).int(int64(m)).str(reactionNames[k]).ts(t).ts(t)
				w.end()
				g.pReacts[p][k]++
				if t >= g.notifyFrom {
					g.notes = append(g.notes, note{recipient: g.pAuthor[p], actor: m, kind: noteReaction, post: int32(p), reaction: uint8(k), t: t})
				}
			}
			if p%4096 == 0 {
				if err := w.failed(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

type comment struct {
	post, author, parent int32
	depth                uint8
	mention              bool // the body starts with @parent-author
	t                    int64
}

// loadComments draws ~Scale.Comments comments (about 45 % replies to a
// recent comment of the same thread, 15 % by the post's author), then
// streams them with their reply counts, and their mentions.
func (g *gen) loadComments(load loader) error {
	r := newRNG(g.cfg.Seed, streamComments)
	total := 0.0
	cw := make([]float32, len(g.pWeight))
	for p := 1; p < len(cw); p++ {
		if g.pWeight[p] == 0 {
			continue
		}
		r.reseed(int64(p))
		cw[p] = float32(math.Pow(float64(g.pWeight[p]), 0.9) * r.lognormal(0, 0.5))
		total += float64(cw[p])
	}
	scale := float64(g.sc.Comments) / total
	cs := make([]comment, 0, g.sc.Comments+g.sc.Comments/20)
	var one []int32
	for p := 1; p < len(cw); p++ {
		if cw[p] == 0 {
			continue
		}
		r.reseed(int64(-p))
		n := r.poisson(scale * float64(cw[p]))
		first := len(cs)
		prev := g.pTime[p]
		author := g.pAuthor[p]
		for k := range n {
			c := comment{post: int32(p), author: author}
			if !r.chance(0.15) {
				if one = g.audience(r, p, 1, one[:0]); len(one) == 1 {
					c.author = one[0]
				}
			}
			if k > 0 && r.chance(0.45) {
				j := first + k - 1 - r.IntN(min(k, 10))
				if cs[j].depth < 8 {
					c.parent, c.depth = int32(j+1), cs[j].depth+1
					c.mention = cs[j].author != c.author && r.chance(0.5)
				}
			}
			prev = g.after(r, prev, float64(3*hour))
			c.t = prev
			cs = append(cs, c)
			g.pComments[p]++
			if c.t < g.notifyFrom {
				continue
			}
			// As the comment store: a reply notifies the parent's author, a
			// comment the post's author, each recipient once, never the actor.
			var parentAuthor int32
			if c.parent != 0 {
				parentAuthor = cs[c.parent-1].author
				if parentAuthor != c.author {
					g.notes = append(g.notes, note{recipient: parentAuthor, actor: c.author, kind: noteReply, post: c.post, comment: int32(len(cs)), t: c.t})
				}
			}
			if author != c.author && author != parentAuthor {
				g.notes = append(g.notes, note{recipient: author, actor: c.author, kind: noteComment, post: c.post, comment: int32(len(cs)), t: c.t})
			}
		}
	}
	replies := make([]int32, len(cs)+1)
	for _, c := range cs {
		if c.parent != 0 {
			replies[c.parent]++
		}
	}
	type mention struct{ comment, member int32 }
	var mentions []mention
	br := newRNG(g.cfg.Seed, streamCommentBody)
	cols := []string{"id", "post_id", "author_id", "parent_id", "depth", "body", "tags", "reply_count", "created_at"}
	err := load("comments", cols, func(w *rowWriter) error {
		var body []byte
		for i, c := range cs {
			id := int64(i + 1)
			br.reseed(id)
			body = body[:0]
			if c.mention {
				body = append(body, '@')
				body = append(body, g.handle[cs[c.parent-1].author]...)
				body = append(body, ' ')
			}
			body = paragraph(body, br, 3+br.IntN(22))
			if br.chance(0.08) {
				body = hashtags(body, br, 1)
			}
			parsed := richtext.Parse(string(body))
			for _, h := range parsed.Mentions {
				if m, ok := g.byHandle[lowerASCII(h)]; ok {
					mentions = append(mentions, mention{comment: int32(id), member: m})
				}
			}
			w.int(id).int(int64(c.post)).int(int64(c.author)).id(int64(c.parent)).int(int64(c.depth)).
				str(string(body)).textArray(parsed.Tags).int(int64(replies[id])).ts(c.t)
			w.end()
			if i%4096 == 0 {
				if err := w.failed(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return load("comment_mentions", []string{"comment_id", "member_id", "position"}, func(w *rowWriter) error {
		for _, m := range mentions {
			w.int(int64(m.comment)).int(int64(m.member)).int(0)
			w.end()
		}
		return w.failed()
	})
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

type media struct {
	post          int32
	pos, kind     uint8
	width, height int32
	alt           int16 // index into commonWords + 1; 0: no alt text
}

type poll struct {
	post     int32
	options  uint8 // index into pollOptions
	multiple bool
	expires  int64
}

type vote struct {
	poll, member int32
	pos          uint8
	t            int64
}

// loadPosts streams the posts with their counters, then their media,
// mentions and polls (with votes).
func (g *gen) loadPosts(load loader) error {
	r := newRNG(g.cfg.Seed, streamPostBody)
	vr := newRNG(g.cfg.Seed, streamPolls)
	var (
		ms       []media
		mentions [][3]int32 // post, member, position
		polls    []poll
		votes    []vote
		voters   []int32
	)
	sizes := [][2]int32{{1080, 1080}, {1080, 1350}, {1920, 1080}, {1080, 1920}, {1200, 800}, {800, 1200}}
	cols := []string{"id", "author_id", "type", "body", "visibility", "link", "tags", "created_at",
		"comment_count", "share_count", "view_count", "like_count", "love_count", "haha_count", "wow_count",
		"sad_count", "angry_count"}
	err := load("posts", cols, func(w *rowWriter) error {
		var body []byte
		for p := 1; p < len(g.pAuthor); p++ {
			r.reseed(int64(p))
			a, kind := g.pAuthor[p], g.pKind[p]
			body = body[:0]
			if kind == kindPoll {
				body = sentence(body, r, 4+r.IntN(10), true)
			} else if r.chance(0.7) {
				body = paragraph(body, r, 5+r.IntN(20))
			} else {
				body = paragraph(body, r, 25+r.IntN(60))
			}
			if fe := g.following[a]; len(fe) > 0 && r.chance(0.10) {
				body = append(body, " with"...)
				for range 1 + r.IntN(2) {
					body = append(body, " @"...)
					body = append(body, g.handle[fe[r.IntN(len(fe))]]...)
				}
			}
			if r.chance(0.22) {
				body = hashtags(body, r, 1+r.IntN(3))
			}
			parsed := richtext.Parse(string(body))
			for i, h := range parsed.Mentions {
				m, ok := g.byHandle[lowerASCII(h)]
				if !ok {
					continue
				}
				mentions = append(mentions, [3]int32{int32(p), m, int32(i)})
				if m != a && g.pTime[p] >= g.notifyFrom && g.canSee(m, p) {
					g.notes = append(g.notes, note{recipient: m, actor: a, kind: noteMention, post: int32(p), t: g.pTime[p]})
				}
			}
			link := ""
			switch kind {
			case kindLink:
				link = "https://example.com/" + commonWords[wordZipf.draw(r)] + "/" + strconv.Itoa(p)
			case kindPhoto:
				for i := range 1 + r.IntN(4) {
					s := sizes[r.IntN(len(sizes))]
					m := media{post: int32(p), pos: uint8(i), kind: 0, width: s[0], height: s[1]}
					if r.chance(0.5) {
						m.alt = int16(1 + wordZipf.draw(r))
					}
					ms = append(ms, m)
				}
			case kindVideo:
				ms = append(ms, media{post: int32(p), kind: 1, width: 1920, height: 1080})
			case kindPoll:
				pl := poll{post: int32(p), options: uint8(r.IntN(len(pollOptions))), multiple: r.chance(0.15),
					expires: g.pTime[p] + r.between(day, 7*day)}
				polls = append(polls, pl)
				vr.reseed(int64(p))
				voters = g.audience(vr, p, vr.poisson(2+0.3*g.reactScale*float64(g.pWeight[p])), voters[:0])
				n := len(pollOptions[pl.options])
				for _, m := range voters {
					t := min(g.after(vr, g.pTime[p], float64(6*hour)), pl.expires)
					first := vr.IntN(n)
					votes = append(votes, vote{poll: int32(len(polls)), member: m, pos: uint8(first), t: t})
					if pl.multiple && vr.chance(0.3) {
						if second := vr.IntN(n); second != first {
							votes = append(votes, vote{poll: int32(len(polls)), member: m, pos: uint8(second), t: t})
						}
					}
				}
			}
			rc := g.pReacts[p]
			reacts := int64(rc[0] + rc[1] + rc[2] + rc[3] + rc[4] + rc[5])
			views := reacts*int64(5+r.IntN(30)) + int64(g.pComments[p])*3 + int64(r.IntN(60))
			shares := reacts / int64(15+r.IntN(20))
			w.int(int64(p)).int(int64(a)).str(kindNames[kind]).str(string(body)).str(visNames[g.pVis[p]]).
				strOrNull(link).textArray(parsed.Tags).ts(g.pTime[p]).int(int64(g.pComments[p])).
				int(shares).int(views)
			for _, c := range rc {
				w.int(int64(c))
			}
			w.end()
			if p%4096 == 0 {
				if err := w.failed(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	cols = []string{"post_id", "position", "kind", "url", "preview_url", "width", "height", "alt"}
	if err := load("post_media", cols, func(w *rowWriter) error {
		for _, m := range ms {
			base := "https://cdn.social.example/media/" + strconv.Itoa(int(m.post)) + "/" + strconv.Itoa(int(m.pos))
			w.int(int64(m.post)).int(int64(m.pos))
			if m.kind == 1 {
				w.str("video").str(base + ".mp4").str(base + ".jpg")
			} else {
				w.str("image").str(base + ".jpg").null()
			}
			w.int(int64(m.width)).int(int64(m.height))
			if m.alt > 0 {
				w.str("A photo of " + commonWords[m.alt-1])
			} else {
				w.null()
			}
			w.end()
		}
		return w.failed()
	}); err != nil {
		return err
	}
	if err := load("post_mentions", []string{"post_id", "member_id", "position"}, func(w *rowWriter) error {
		for _, m := range mentions {
			w.int(int64(m[0])).int(int64(m[1])).int(int64(m[2]))
			w.end()
		}
		return w.failed()
	}); err != nil {
		return err
	}
	return g.loadPolls(load, polls, votes)
}

func (g *gen) loadPolls(load loader, polls []poll, votes []vote) error {
	type tally struct{ votes, voters int }
	perPoll := make([]tally, len(polls)+1)
	perOption := make([][10]int, len(polls)+1)
	for i, v := range votes {
		perPoll[v.poll].votes++
		if i == 0 || votes[i-1].poll != v.poll || votes[i-1].member != v.member {
			perPoll[v.poll].voters++
		}
		perOption[v.poll][v.pos]++
	}
	// A poll closed by the data set's now was announced then (its poll
	// notifications are taken as pruned, as older events' are): the
	// server's closer announces only the polls that close while it runs.
	cols := []string{"id", "post_id", "question", "multiple", "expires_at", "votes_count", "voters_count", "created_at",
		"closed_notified_at"}
	var q []byte
	r := newRNG(g.cfg.Seed, streamPostBody)
	if err := load("polls", cols, func(w *rowWriter) error {
		for i, pl := range polls {
			// The question is the post's body, drawn again from its sequence.
			r.reseed(int64(pl.post))
			q = sentence(q[:0], r, 4+r.IntN(10), true)
			w.int(int64(i + 1)).int(int64(pl.post)).str(string(q)).bool(pl.multiple).ts(pl.expires).
				int(int64(perPoll[i+1].votes)).int(int64(perPoll[i+1].voters)).ts(g.pTime[pl.post])
			if pl.expires <= g.now {
				w.ts(pl.expires)
			} else {
				w.null()
			}
			w.end()
		}
		return w.failed()
	}); err != nil {
		return err
	}
	if err := load("poll_options", []string{"poll_id", "position", "title", "votes"}, func(w *rowWriter) error {
		for i, pl := range polls {
			for j, title := range pollOptions[pl.options] {
				w.int(int64(i + 1)).int(int64(j)).str(title).int(int64(perOption[i+1][j]))
				w.end()
			}
		}
		return w.failed()
	}); err != nil {
		return err
	}
	return load("poll_votes", []string{"poll_id", "member_id", "position", "created_at"}, func(w *rowWriter) error {
		for _, v := range votes {
			w.int(int64(v.poll)).int(int64(v.member)).int(int64(v.pos)).ts(v.t)
			w.end()
		}
		return w.failed()
	})
}

// activity draws when each member last used the service (g.lastUsed): the
// ActiveShare of members who post the most (act) within the last day, the
// others 15 to 365 days ago, after they joined. An idle member's posts all
// fall before then (as many as if they were active: the data set keeps its
// size).
func (g *gen) activity(act []float64) {
	g.lastUsed = make([]int64, g.n+1)
	order := make([]int, g.n)
	for i := range order {
		order[i] = i + 1
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(act[a], act[b]), cmp.Compare(a, b)) })
	idle := int(math.Round(float64(g.n) * (1 - g.sc.ActiveShare)))
	r := newRNG(g.cfg.Seed, streamActivity)
	for rank, id := range order {
		r.reseed(int64(id))
		if rank < idle {
			g.lastUsed[id] = r.between(max(g.now-365*day, g.created[id]+day), g.now-15*day)
		} else {
			g.lastUsed[id] = g.now - r.Int64N(day)
		}
	}
}
