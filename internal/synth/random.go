package synth

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Streams separate the random sequences of the generator's phases, so that
// changing one phase does not reshuffle the others.
const (
	streamMembers uint64 = iota + 1
	streamFollows
	streamPostTimes
	streamPost
	streamPostBody
	streamReactions
	streamComments
	streamCommentBody
	streamPolls
	streamInbox
	streamMessage
	streamMarket
	streamJobs
	streamNotify
	streamActivity
	streamRelations
)

// rng is a reseedable PCG: reseed(id) gives the sequence of one entity (a
// post, a conversation...), the same whatever was generated before it.
type rng struct {
	*rand.Rand
	pcg    *rand.PCG
	seed   uint64
	stream uint64
}

func newRNG(seed int64, stream uint64) *rng {
	p := rand.NewPCG(uint64(seed), stream)
	return &rng{Rand: rand.New(p), pcg: p, seed: uint64(seed), stream: stream}
}

func (r *rng) reseed(id int64) *rng {
	r.pcg.Seed(r.seed^(r.stream*0x9E3779B97F4A7C15), uint64(id))
	return r
}

// lognormal returns exp(N(mu, sigma)).
func (r *rng) lognormal(mu, sigma float64) float64 { return math.Exp(mu + sigma*r.NormFloat64()) }

// poisson draws a Poisson variate (normal approximation above 30).
func (r *rng) poisson(lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 30 {
		n := math.Round(lambda + math.Sqrt(lambda)*r.NormFloat64())
		if n < 0 {
			return 0
		}
		return int(n)
	}
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo+1)
}

// chance is true with probability p.
func (r *rng) chance(p float64) bool { return r.Float64() < p }

// zipf is a Zipf-like distribution over n ranks: P(rank k) ∝ 1/(k+1)^s.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += 1 / math.Pow(float64(k+1), s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return zipf{cdf: cdf}
}

func (z zipf) draw(r *rng) int {
	i := sort.SearchFloat64s(z.cdf, r.Float64())
	if i >= len(z.cdf) {
		i = len(z.cdf) - 1
	}
	return i
}

// weighted draws indexes with probability proportional to their weights
// (cumulative sums and a binary search).
type weighted struct{ cum []float64 }

func newWeighted(w []float64) weighted {
	cum := make([]float64, len(w))
	s := 0.0
	for i, v := range w {
		s += v
		cum[i] = s
	}
	return weighted{cum: cum}
}

func (w weighted) total() float64 {
	if len(w.cum) == 0 {
		return 0
	}
	return w.cum[len(w.cum)-1]
}

func (w weighted) draw(r *rng) int {
	i := sort.SearchFloat64s(w.cum, r.Float64()*w.total())
	if i >= len(w.cum) {
		i = len(w.cum) - 1
	}
	return i
}

// picker draws distinct members: by rejection when few are wanted from a
// large pool, by a partial shuffle of a copy otherwise.
type picker struct {
	seen    map[int32]struct{}
	scratch []int32
}

func newPicker() *picker { return &picker{seen: map[int32]struct{}{}} }

// fromPool appends up to n distinct members of pool, never skip, to out.
func (p *picker) fromPool(r *rng, pool []int32, n int, skip int32, out []int32) []int32 {
	if n <= 0 || len(pool) == 0 {
		return out
	}
	if n*4 < len(pool) {
		clear(p.seen)
		for tries := 0; n > 0 && tries < 20*n+20; tries++ {
			m := pool[r.IntN(len(pool))]
			if m == skip {
				continue
			}
			if _, dup := p.seen[m]; dup {
				continue
			}
			p.seen[m] = struct{}{}
			out = append(out, m)
			n--
		}
		return out
	}
	p.scratch = append(p.scratch[:0], pool...)
	for i := 0; i < len(p.scratch) && n > 0; i++ {
		j := i + r.IntN(len(p.scratch)-i)
		p.scratch[i], p.scratch[j] = p.scratch[j], p.scratch[i]
		if p.scratch[i] == skip {
			continue
		}
		out = append(out, p.scratch[i])
		n--
	}
	return out
}
