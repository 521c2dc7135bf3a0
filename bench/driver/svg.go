package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// chart draws a scenario's runs side by side: latency percentiles per second
// on a log scale above, requests per second below. Hand-written SVG, no
// dependencies.
func chart(s *scenarioReport) string {
	const (
		w, h             = 960.0, 440.0
		left, right      = 64.0, 16.0
		top, latH        = 40.0, 250.0
		gap, rateH       = 36.0, 80.0
		plotW            = w - left - right
		rateTop          = top + latH + gap
		colP50, colP95   = "#1f77b4", "#ff7f0e"
		colP99, colRate  = "#d62728", "#7f7f7f"
		separatorSeconds = 1.0
	)
	type run struct {
		label  string
		series []point
		offset float64
	}
	var runs []run
	span := 0.0
	for _, p := range s.phases() {
		last := 0.0
		for _, pt := range p.Series {
			last = max(last, pt.T+1)
		}
		runs = append(runs, run{label: p.Load, series: p.Series, offset: span})
		span += last + separatorSeconds
	}
	span = max(span-separatorSeconds, 1)
	lo, hi, maxRate := math.Inf(1), 0.0, 0.0
	for _, r := range runs {
		for _, pt := range r.series {
			lo = min(lo, pt.P50)
			hi = max(hi, pt.P99)
			maxRate = max(maxRate, float64(pt.Count))
		}
	}
	if math.IsInf(lo, 1) || hi <= 0 {
		lo, hi = 0.1, 1
	}
	lo = math.Pow(10, math.Floor(math.Log10(max(lo, 0.01))))
	hi = math.Pow(10, math.Ceil(math.Log10(max(hi, lo*10))))
	x := func(t float64) float64 { return left + t/span*plotW }
	y := func(v float64) float64 {
		v = math.Max(v, lo)
		return top + latH - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*latH
	}
	yr := func(v float64) float64 { return rateTop + rateH - v/math.Max(maxRate, 1)*rateH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="14" font-weight="bold">%s: %s</text>`+"\n", left, html.EscapeString(s.Name), html.EscapeString(s.Title))
	// Latency grid: one line per decade.
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, left+plotW, y(d), y(d))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s ms</text>`+"\n", left-4, y(d)+4, trimFloat(d))
	}
	fmt.Fprintf(&b, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">latency per second (log)</text>`+"\n", top+latH/2, top+latH/2)
	for _, r := range runs {
		x0 := x(r.offset)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 3"/>`, x0, x0, top, rateTop+rateH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x0+4, top-6, html.EscapeString(r.label))
		for _, line := range []struct {
			col string
			v   func(point) float64
		}{{colP99, func(p point) float64 { return p.P99 }}, {colP95, func(p point) float64 { return p.P95 }}, {colP50, func(p point) float64 { return p.P50 }}} {
			var pts []string
			for _, pt := range r.series {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(r.offset+pt.T+0.5), y(line.v(pt))))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>`+"\n", line.col, strings.Join(pts, " "))
		}
		for _, pt := range r.series {
			bx := x(r.offset + pt.T)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, bx+0.5, yr(float64(pt.Count)),
				math.Max(plotW/span-1, 0.5), rateTop+rateH-yr(float64(pt.Count)), colRate)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>`, left, left+plotW, rateTop+rateH, rateTop+rateH)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s req/s</text>`, left-4, rateTop+6, trimFloat(maxRate))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">0</text>`+"\n", left-4, rateTop+rateH+4)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">seconds into each run</text>`+"\n", left+plotW/2, h-4)
	lx := left + plotW - 230
	for i, l := range []struct{ col, name string }{{colP50, "p50"}, {colP95, "p95"}, {colP99, "p99"}, {colRate, "req/s"}} {
		fmt.Fprintf(&b, `<rect x="%.1f" y="8" width="10" height="10" fill="%s"/><text x="%.1f" y="17">%s</text>`, lx+float64(i)*58, l.col, lx+float64(i)*58+14, l.name)
	}
	// Seconds since the start of each run.
	for _, r := range runs {
		n := 0.0
		for _, pt := range r.series {
			n = max(n, pt.T+1)
		}
		step := math.Max(1, math.Ceil(n/10))
		for t := 0.0; t <= n; t += step {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`, x(r.offset+t), rateTop+rateH+14, trimFloat(t))
		}
	}
	b.WriteString("\n</svg>\n")
	return b.String()
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
