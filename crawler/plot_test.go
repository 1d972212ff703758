package crawler

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// plotHarvest draws the mean harvest curves as an SVG with two panels:
// relevance judged by the profile and by the hand labels.
func plotHarvest(names []string, mean []curves, step, budget int) string {
	const (
		pw, ph       = 380, 260 // panel plot area
		left, top    = 60, 40
		gap, bottom  = 90, 170
		width        = left + 2*pw + gap + 20
		height       = top + ph + bottom
		yTicks       = 5
		strokeWidth  = 2
		legendSpacer = 20
	)
	colors := []string{"#888888", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"}
	dashes := []string{"6,4", "", "2,3", "", "8,3,2,3"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	panels := []struct {
		title string
		get   func(curves) []float64
	}{
		{"relevant as judged by the topic profile", func(c curves) []float64 { return c.judged }},
		{"relevant by the hand labels", func(c curves) []float64 { return c.labelled }},
	}
	for pi, p := range panels {
		x0 := left + pi*(pw+gap)
		ymax := 0.0
		for _, m := range mean {
			for _, v := range p.get(m) {
				ymax = math.Max(ymax, v)
			}
		}
		ymax = math.Ceil(ymax*10) / 10
		if ymax == 0 {
			ymax = 1
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>`+"\n", x0+pw/2, top-15, html.EscapeString(p.title))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", x0, top, pw, ph)
		for i := 0; i <= yTicks; i++ {
			v := ymax * float64(i) / yTicks
			y := top + ph - int(float64(ph)*float64(i)/yTicks)
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#dddddd"/><text x="%d" y="%d" text-anchor="end">%.2f</text>`+"\n", x0, y, x0+pw, y, x0-5, y+4, v)
		}
		for _, frac := range []int{0, 25, 50, 75, 100} {
			x := x0 + pw*frac/100
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#dddddd"/><text x="%d" y="%d" text-anchor="middle">%d%%</text>`+"\n", x, top, x, top+ph, x, top+ph+16, frac)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">pages fetched (%% of the %d-page budget)</text>`+"\n", x0+pw/2, top+ph+34, budget)
		fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">harvest rate (mean of 6 topics)</text>`+"\n", x0-45, top+ph/2)
		for mi, m := range mean {
			var pts []string
			for i, v := range p.get(m) {
				x := float64(x0) + float64(pw)*float64((i+1)*step)/float64(budget)
				y := float64(top+ph) - float64(ph)*v/ymax
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			}
			dash := ""
			if dashes[mi%len(dashes)] != "" {
				dash = fmt.Sprintf(` stroke-dasharray="%s"`, dashes[mi%len(dashes)])
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%d"%s/>`+"\n", strings.Join(pts, " "), colors[mi%len(colors)], strokeWidth, dash)
		}
	}
	for i, n := range names {
		y := top + ph + 60 + i*legendSpacer
		dash := ""
		if dashes[i%len(dashes)] != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, dashes[i%len(dashes)])
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%d"%s/><text x="%d" y="%d">%s</text>`+"\n",
			left, y, left+40, y, colors[i%len(colors)], strokeWidth, dash, left+50, y+4, html.EscapeString(n))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
