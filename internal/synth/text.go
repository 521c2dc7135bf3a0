package synth

var (
	wordZipf = newZipf(len(commonWords), 1.05)
	tagZipf  = newZipf(len(tagWords), 0.9)
)

// sentence appends n words of Zipf-distributed text, capitalised, ending
// with a full stop (or a question mark).
func sentence(b []byte, r *rng, n int, question bool) []byte {
	for i := range n {
		w := commonWords[wordZipf.draw(r)]
		if i == 0 && len(w) > 0 && w[0] >= 'a' && w[0] <= 'z' {
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
		} else {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, w...)
		}
		if i < n-1 && r.chance(0.06) {
			b = append(b, ',')
		}
	}
	if question {
		return append(b, '?')
	}
	if r.chance(0.15) {
		return append(b, '!')
	}
	return append(b, '.')
}

// paragraph appends sentences totalling about n words.
func paragraph(b []byte, r *rng, n int) []byte {
	for n > 0 {
		k := min(n, 4+r.IntN(12))
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = sentence(b, r, k, false)
		n -= k
	}
	return b
}

// hashtags appends k " #tag" words.
func hashtags(b []byte, r *rng, k int) []byte {
	for range k {
		b = append(b, " #"...)
		b = append(b, tagWords[tagZipf.draw(r)]...)
	}
	return b
}
