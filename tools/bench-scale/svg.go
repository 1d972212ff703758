package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// A hand-written SVG: panels sharing the x axis (pages indexed) — the
// indexing rate of each tenth, its CPU time per page, memory, and bytes on
// disk — one colour per mode, values averaged over repetitions.

var modeColors = map[string]string{modeDedup: "#d62728", modeSuppress: "#9467bd", modeNoDedup: "#ff7f0e", modePlain: "#1f77b4", modeDefault: "#2ca02c", modeWrap: "#8c564b", modeWrapNoDedup: "#e377c2"}

type series struct {
	label, color, dash string
	pts                [][2]float64
}

const (
	svgW      = 960.0
	panelH    = 240.0
	padLeft   = 80.0
	padRight  = 220.0
	padTop    = 70.0
	panelGap  = 70.0
	plotWidth = svgW - padLeft - padRight
)

// plot draws rp's curves.
func plot(w io.Writer, rp *report) {
	type key struct {
		mode  string
		tenth int
	}
	// mean over repetitions of a sample's field, per mode and tenth
	mean := func(mode string, f func(sample) float64) [][2]float64 {
		sum, n, x := map[int]float64{}, map[int]int{}, map[int]float64{}
		for _, r := range rp.Results {
			if r.Mode != mode {
				continue
			}
			for _, s := range r.Samples {
				sum[s.Tenth] += f(s)
				n[s.Tenth]++
				x[s.Tenth] += float64(s.Pages)
			}
		}
		var pts [][2]float64
		for t := 1; t <= 10; t++ {
			if n[t] > 0 {
				pts = append(pts, [2]float64{x[t] / float64(n[t]), sum[t] / float64(n[t])})
			}
		}
		return pts
	}
	var modes []string
	for _, r := range rp.Results {
		if !slices.Contains(modes, r.Mode) {
			modes = append(modes, r.Mode)
		}
	}
	const mb = 1 << 20
	var rate, cpu, mem, disk []series
	for _, m := range modes {
		c := modeColors[m]
		rate = append(rate, series{m, c, "", mean(m, func(s sample) float64 { return s.DocsPerS })})
		cpu = append(cpu, series{m, c, "", mean(m, func(s sample) float64 { return s.CPUMsPerDoc })})
		mem = append(mem,
			series{m + " RssAnon", c, "", mean(m, func(s sample) float64 { return float64(s.RSSAnon) / mb })},
			series{m + " RssFile", c, "6 4", mean(m, func(s sample) float64 { return float64(s.RSSFile) / mb })},
			series{m + " Go heap live", c, "2 3", mean(m, func(s sample) float64 { return float64(s.HeapLive) / mb })})
		disk = append(disk, series{m + " bleve", c, "", mean(m, func(s sample) float64 { return float64(s.BleveBytes) / mb })})
		if filtered(m) {
			disk = append(disk, series{m + " store", c, "6 4", mean(m, func(s sample) float64 { return float64(s.StoreBytes) / mb })})
		}
	}
	xmax := float64(rp.Summary.Pages)
	panels := []struct {
		title string
		ss    []series
	}{
		{"indexing rate of each tenth (docs/s)", rate},
		{"CPU time per page of each tenth (ms, all threads: less disturbed by other jobs than the rate)", cpu},
		{"memory at each tenth (MiB): RssAnon solid, RssFile dashed, Go heap live after GC dotted", mem},
		{"bytes on disk (MiB): bleve solid, dedup store dashed", disk},
	}
	n := float64(len(panels))
	height := padTop + n*panelH + (n-1)*panelGap + 50
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", svgW, height, svgW, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="26" font-size="15" font-weight="bold">%s</text>`+"\n", padLeft,
		html.EscapeString(fmt.Sprintf("bleve-dedup scale benchmark: %d pages, batch %d, commit %.12s", rp.Summary.Pages, rp.Summary.Batch, rp.Commit)))
	y := padTop
	for i, p := range panels {
		if i > 0 {
			y += panelH + panelGap
		}
		panel(w, y, p.title, xmax, p.ss)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="middle">pages indexed</text>`+"\n", padLeft+plotWidth/2, y+panelH+40)
	fmt.Fprintln(w, "</svg>")
}

// panel draws one chart with its top edge at y0.
func panel(w io.Writer, y0 float64, title string, xmax float64, ss []series) {
	ymax := 0.0
	for _, s := range ss {
		for _, p := range s.pts {
			ymax = max(ymax, p[1])
		}
	}
	ystep := niceStep(ymax / 5)
	ymax = math.Max(ystep, math.Ceil(ymax/ystep)*ystep)
	xstep := niceStep(xmax / 5)
	px := func(x float64) float64 { return padLeft + x/xmax*plotWidth }
	py := func(v float64) float64 { return y0 + panelH - v/ymax*panelH }

	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-weight="bold">%s</text>`+"\n", padLeft, y0-10, html.EscapeString(title))
	for v := 0.0; v <= ymax+ystep/2; v += ystep {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, px(0), py(v), px(xmax), py(v))
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px(0)-6, py(v)+4, tick(v))
	}
	for x := 0.0; x <= xmax+xstep/2; x += xstep {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, px(x), py(0), px(x), py(ymax))
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(x), py(0)+16, tick(x))
	}
	fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", px(0), y0, plotWidth, panelH)
	for i, s := range ss {
		if len(s.pts) == 0 {
			continue
		}
		var pts []string
		for _, p := range s.pts {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p[0]), py(p[1])))
		}
		dash := ""
		if s.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, s.dash)
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", s.color, dash, strings.Join(pts, " "))
		for _, p := range s.pts {
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, px(p[0]), py(p[1]), s.color)
		}
		fmt.Fprintln(w)
		ly := y0 + 10 + float64(i)*18
		lx := px(xmax) + 15
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, lx, ly, lx+28, ly, s.color, dash)
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+34, ly+4, html.EscapeString(s.label))
	}
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if x <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// tick formats an axis value: 20000 -> 20k, 1500000 -> 1.5M.
func tick(v float64) string {
	switch {
	case v >= 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e6), ".0") + "M"
	case v >= 1e4:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e3), ".0") + "k"
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}
