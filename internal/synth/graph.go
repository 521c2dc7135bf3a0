package synth

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/socialnet/socialapi/internal/auth"
)

const (
	day  = int64(24 * time.Hour / time.Microsecond)
	hour = int64(time.Hour / time.Microsecond)
)

// Post visibilities, as indexes of visNames.
const (
	visPublic = iota
	visFollowers
	visPrivate
)

// loader streams the rows fill writes into a table's columns.
type loader = func(table string, cols []string, fill func(w *rowWriter) error) error

var visNames = [...]string{"public", "followers", "private"}

// gen holds the network while it is drawn and streamed. Members are 1..n;
// slices indexed by member or post id have an unused element 0.
type gen struct {
	cfg        Config
	sc         Scale
	now        int64 // Unix microseconds
	notifyFrom int64
	n          int

	handle    []string
	name      []string
	created   []int64
	defVis    []uint8
	verified  []bool
	lastUsed  []int64   // when the member last used the service (activity)
	following [][]int32 // sorted
	blocking  [][]int32 // whom each member blocks: never a member they follow or who follows them
	muting    [][]int32 // whom each member mutes
	suspended []bool    // whether each member is suspended
	followers [][]int32 // sorted
	all       []int32   // 1..n
	byHandle  map[string]int32
	nFollows  int

	// posts, by id (ids follow created_at)
	pAuthor   []int32
	pTime     []int64
	pVis      []uint8
	pKind     []uint8
	pReacts   [][6]int32
	pComments []int32
	pWeight   []float32
	// reactScale turns a post's weight into its expected reactions.
	reactScale float64

	categories []int64
	notes      []note
	pk         *picker
}

func newGen(cfg Config) *gen {
	now := cfg.Now.UnixMicro()
	return &gen{
		cfg: cfg, sc: cfg.Scale, now: now, notifyFrom: now - int64(cfg.Scale.NotifyDays)*day,
		n: cfg.Scale.Members, pk: newPicker(),
	}
}

// canSee is the visibility rule (internal/visibility) over the drawn graph.
func (g *gen) canSee(viewer int32, post int) bool {
	a := g.pAuthor[post]
	switch {
	case a == viewer:
		return true
	case g.separated(a, viewer):
		return false
	case g.pVis[post] == visPublic:
		return true
	case g.pVis[post] == visFollowers:
		_, ok := slices.BinarySearch(g.following[viewer], a)
		return ok
	}
	return false
}

func asciiLower(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(unicode.ToLower(r))
		case r == 'ü':
			b.WriteByte('u')
		}
	}
	return b.String()
}

func (g *gen) members() {
	n := g.n
	g.handle, g.name = make([]string, n+1), make([]string, n+1)
	g.created, g.defVis, g.verified = make([]int64, n+1), make([]uint8, n+1), make([]bool, n+1)
	g.all = make([]int32, n)
	g.byHandle = make(map[string]int32, n)
	r := newRNG(g.cfg.Seed, streamMembers)
	for id := 1; id <= n; id++ {
		r.reseed(int64(id))
		first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
		g.name[id] = first + " " + last
		g.handle[id] = asciiLower(first) + "_" + asciiLower(last) + strconv.Itoa(id)
		g.byHandle[strings.ToLower(g.handle[id])] = int32(id)
		g.created[id] = g.now - r.between(400*day, 1100*day) - r.Int64N(day)
		switch v := r.Float64(); {
		case v < 0.85:
			g.defVis[id] = visPublic
		case v < 0.97:
			g.defVis[id] = visFollowers
		default:
			g.defVis[id] = visPrivate
		}
		g.verified[id] = r.chance(0.02)
		g.all[id-1] = int32(id)
	}
}

// follows draws the graph: a typical member follows around FollowMedian
// others (log-normal; 5 % follow many more, 5 % very few), 55 % of them
// picked by a Zipf popularity over a random ranking of members and the rest
// uniformly, so a handful of accounts gather 5,000+ followers at the default
// scale while the median member has ~100.
func (g *gen) follows() {
	n := g.n
	r := newRNG(g.cfg.Seed, streamFollows)
	rank := make([]int32, n)
	copy(rank, g.all)
	r.Shuffle(n, func(i, j int) { rank[i], rank[j] = rank[j], rank[i] })
	z := newZipf(n, 1.0)
	g.following = make([][]int32, n+1)
	g.followers = make([][]int32, n+1)
	seen := map[int32]struct{}{}
	med := float64(g.sc.FollowMedian)
	for a := 1; a <= n; a++ {
		r.reseed(int64(a))
		k := med * r.lognormal(0, 0.22)
		switch v := r.Float64(); {
		case v < 0.05:
			k = med * (2 + 8*r.Float64())
		case v < 0.10:
			k = med * (0.03 + 0.3*r.Float64())
		}
		want := min(int(math.Round(k)), n-1)
		clear(seen)
		out := make([]int32, 0, want)
		for tries := 0; len(out) < want && tries < 30*want+30; tries++ {
			var b int32
			if r.chance(0.55) {
				b = rank[z.draw(r)]
			} else {
				b = int32(1 + r.IntN(n))
			}
			if b == int32(a) {
				continue
			}
			if _, dup := seen[b]; dup {
				continue
			}
			seen[b] = struct{}{}
			out = append(out, b)
		}
		slices.Sort(out)
		g.following[a] = out
		g.nFollows += len(out)
		for _, b := range out {
			g.followers[b] = append(g.followers[b], int32(a))
		}
	}
	// The most followed accounts are verified, as on real networks.
	for i := 0; i < min(n, 25); i++ {
		g.verified[rank[i]] = true
	}
}

// followTime is when a started following b: after both joined, a hash of
// the pair spreading it up to now.
func (g *gen) followTime(a, b int32) int64 {
	from := max(g.created[a], g.created[b])
	return from + int64(unit(uint64(g.cfg.Seed), uint64(a)<<32|uint64(b))*float64(g.now-from))
}

// unit hashes (seed, x) to [0, 1) (splitmix64).
func unit(seed, x uint64) float64 {
	z := seed + x*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

func (g *gen) graphStats() (maxFollowers, over5000, medFollowing, medFollowers int) {
	fo, fe := make([]int, 0, g.n), make([]int, 0, g.n)
	for id := 1; id <= g.n; id++ {
		fo = append(fo, len(g.following[id]))
		fe = append(fe, len(g.followers[id]))
		maxFollowers = max(maxFollowers, len(g.followers[id]))
		if len(g.followers[id]) >= 5000 {
			over5000++
		}
	}
	slices.Sort(fo)
	slices.Sort(fe)
	return maxFollowers, over5000, fo[len(fo)/2], fe[len(fe)/2]
}

func (g *gen) loadMembers(load loader) error {
	r := newRNG(g.cfg.Seed, streamMembers)
	cols := []string{"id", "handle", "name", "bio", "avatar_url", "verified", "default_visibility",
		"follower_count", "following_count", "block_count", "created_at", "suspended_at"}
	err := load("members", cols, func(w *rowWriter) error {
		var bio []byte
		for id := 1; id <= g.n; id++ {
			r.reseed(int64(-id))
			w.int(int64(id)).str(g.handle[id]).str(g.name[id])
			if r.chance(0.6) {
				bio = sentence(bio[:0], r, 4+r.IntN(14), false)
				w.str(string(bio))
			} else {
				w.null()
			}
			if r.chance(0.7) {
				w.str("https://cdn.social.example/avatars/" + strconv.Itoa(id) + ".jpg")
			} else {
				w.null()
			}
			w.bool(g.verified[id]).str(visNames[g.defVis[id]]).
				int(int64(len(g.followers[id]))).int(int64(len(g.following[id]))).int(int64(len(g.blocking[id]))).ts(g.created[id]).
				ts(g.suspendedAt(id))
			w.end()
		}
		return w.failed()
	})
	if err != nil {
		return err
	}
	// Two tokens per member, derived from the seed (Token), both last used
	// when their member last used the service.
	cols = []string{"id", "member_id", "name", "scope", "token_hash", "display_prefix", "created_at"}
	err = load("api_tokens", cols, func(w *rowWriter) error {
		for id := 1; id <= g.n; id++ {
			for i, s := range []auth.Scope{auth.ScopeRead, auth.ScopeWrite} {
				tok := Token(g.cfg.Seed, int64(id), s)
				w.int(int64(2*id - 1 + i)).int(int64(id)).str("synthetic " + string(s)).str(string(s)).
					bytea(auth.Hash(tok)).str(auth.DisplayPrefix(tok)).ts(g.created[id])
				w.end()
			}
		}
		return w.failed()
	})
	if err != nil {
		return err
	}
	return load("api_token_uses", []string{"token_id", "last_used_at"}, func(w *rowWriter) error {
		for id := 1; id <= g.n; id++ {
			for i := range 2 {
				w.int(int64(2*id - 1 + i)).ts(g.lastUsed[id])
				w.end()
			}
		}
		return w.failed()
	})
}

func (g *gen) loadFollows(load loader) error {
	return load("follows", []string{"follower_id", "followee_id", "created_at"}, func(w *rowWriter) error {
		for a := 1; a <= g.n; a++ {
			for _, b := range g.following[a] {
				t := g.followTime(int32(a), b)
				w.int(int64(a)).int(int64(b)).ts(t)
				w.end()
				if t >= g.notifyFrom {
					g.notes = append(g.notes, note{recipient: b, actor: int32(a), kind: noteFollow, t: t})
				}
			}
			if err := w.failed(); err != nil {
				return err
			}
		}
		return nil
	})
}

// relations gives members blocks and mutes, so that the benchmark measures
// what the visibility rule costs rather than assuming it: 10 % of members
// block 1 to 5 others (never a member they follow or who follows them, as
// a block cuts those edges) and 15 % mute 1 to 5, half of them among the
// members they follow (muting a followee is what a mute is mostly for).
// And 0.2 % of members are suspended: with any member suspended, every row
// a stream reads pays the suspension probe, as on a network in service.
func (g *gen) relations() {
	r := newRNG(g.cfg.Seed, streamRelations)
	g.blocking = make([][]int32, g.n+1)
	g.muting = make([][]int32, g.n+1)
	g.suspended = make([]bool, g.n+1)
	if g.n < 3 {
		return
	}
	for a := 1; a <= g.n; a++ {
		r.reseed(int64(a))
		if r.chance(0.10) {
			seen := map[int32]bool{}
			for k, tries := 1+r.IntN(5), 0; len(g.blocking[a]) < k && tries < 50; tries++ {
				b := int32(1 + r.IntN(g.n))
				if b == int32(a) || seen[b] || g.isFollowing(int32(a), b) || g.isFollowing(b, int32(a)) || slices.Contains(g.blocking[b], int32(a)) {
					continue
				}
				seen[b] = true
				g.blocking[a] = append(g.blocking[a], b)
			}
		}
		if r.chance(0.15) {
			seen := map[int32]bool{}
			for k, tries := 1+r.IntN(5), 0; len(g.muting[a]) < k && tries < 50; tries++ {
				b := int32(1 + r.IntN(g.n))
				if f := g.following[a]; len(f) > 0 && r.chance(0.5) {
					b = f[r.IntN(len(f))]
				}
				if b == int32(a) || seen[b] {
					continue
				}
				seen[b] = true
				g.muting[a] = append(g.muting[a], b)
			}
		}
		g.suspended[a] = r.chance(0.002)
	}
}

// separated reports whether a block stands between a and b, either way.
func (g *gen) separated(a, b int32) bool {
	return slices.Contains(g.blocking[a], b) || slices.Contains(g.blocking[b], a)
}

// isFollowing reports whether a follows b.
func (g *gen) isFollowing(a, b int32) bool {
	_, ok := slices.BinarySearch(g.following[a], b)
	return ok
}

func (g *gen) loadRelations(load loader) error {
	for _, rel := range []struct {
		table string
		cols  []string
		of    [][]int32
	}{
		{"blocks", []string{"blocker_id", "blocked_id", "created_at"}, g.blocking},
		{"mutes", []string{"muter_id", "muted_id", "created_at"}, g.muting},
	} {
		err := load(rel.table, rel.cols, func(w *rowWriter) error {
			for a := 1; a <= g.n; a++ {
				for _, b := range rel.of[a] {
					w.int(int64(a)).int(int64(b)).ts(g.followTime(int32(a), b))
					w.end()
				}
			}
			return w.failed()
		})
		if err != nil {
			return err
		}
	}
	return load("member_suspensions", []string{"member_id", "suspended_at", "reason"}, func(w *rowWriter) error {
		for id := 1; id <= g.n; id++ {
			if g.suspended[id] {
				w.int(int64(id)).ts(g.suspendedAt(id)).str("synthetic: spam")
				w.end()
			}
		}
		return w.failed()
	})
}

// suspendedAt is when member id was suspended (0: not suspended): a day
// before the data set's now.
func (g *gen) suspendedAt(id int) int64 {
	if g.suspended == nil || !g.suspended[id] {
		return 0
	}
	return g.now - 24*3600*1_000_000
}
