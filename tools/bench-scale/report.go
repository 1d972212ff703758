package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bleve-dedup/bleve-dedup/eval"
)

// report is everything a run found; NAME.json holds it whole.
type report struct {
	Commit  string       `json:"commit"`
	Machine string       `json:"machine"`
	Date    string       `json:"date"`
	Config  config       `json:"config"`
	Corpus  corpus       `json:"corpus"`
	Results []modeResult `json:"results"`
	Summary summary      `json:"summary"`
}

// summary is the part printed at the end of a run (and with -format json).
type summary struct {
	Commit  string `json:"commit"`
	Machine string `json:"machine"`
	Pages   int    `json:"pages"`
	Batch   int    `json:"batch"`
	// BatchBytes: see config.
	BatchBytes int           `json:"batch_bytes"`
	Policy     string        `json:"policy"`
	Reps       int           `json:"reps"`
	Modes      []modeSummary `json:"modes"`
	Ratios     []ratio       `json:"ratios"`
	Eval       *eval.Scores  `json:"eval,omitempty"`
	// LostContent: see modeResult; absent from reports saved before it.
	LostContent *lostContent `json:"lost_content,omitempty"`
	Search      *searchStats `json:"search,omitempty"`
}

// modeSummary sums up one mode over its repetitions: times are medians,
// memory peaks are maxima, sizes are the first repetition's.
type modeSummary struct {
	Mode       string  `json:"mode"`
	IngestS    float64 `json:"ingest_s"`
	DocsPerS   float64 `json:"docs_per_s"`
	SettledS   float64 `json:"settled_s"`
	CPUS       float64 `json:"cpu_s"`
	FirstDocsS float64 `json:"first_tenth_docs_per_s"`
	LastDocsS  float64 `json:"last_tenth_docs_per_s"`
	// LastFirst is the time per page of the last tenth over that of the
	// first: 1 when the cost per page does not grow with the index.
	LastFirst float64 `json:"last_over_first"`
	// CPU time per page of the first and last tenths, and their ratio:
	// the same measure in CPU time, which other jobs on a shared machine
	// disturb less.
	FirstCPUMs    float64 `json:"first_tenth_cpu_ms_per_doc"`
	LastCPUMs     float64 `json:"last_tenth_cpu_ms_per_doc"`
	LastFirstCPU  float64 `json:"last_over_first_cpu"`
	PeakRSSAnon   uint64  `json:"peak_rss_anon"`
	PeakRSSFile   uint64  `json:"peak_rss_file"`
	PeakHeap      uint64  `json:"peak_heap_objects"`
	VmHWM         uint64  `json:"vm_hwm"`
	BleveBytes    int64   `json:"bleve_bytes"`
	StoreBytes    int64   `json:"store_bytes"`
	StorePerPage  float64 `json:"store_bytes_per_page"`
	BlevePerPage  float64 `json:"bleve_bytes_per_page"`
	Duplicates    int     `json:"duplicates"`
	IndexedBleve  int     `json:"indexed"`
	IndexErrors   int     `json:"errors"`
	Repetitions   int     `json:"repetitions"`
	IngestSpreadS float64 `json:"ingest_spread_s"` // max - min over repetitions
	// Eval and LostContent are the first repetition's, in the modes
	// through the filter.
	Eval        *eval.Scores `json:"eval,omitempty"`
	LostContent *lostContent `json:"lost_content,omitempty"`
}

// ratio compares the dedup mode with a plain one: above 1, dedup is slower.
type ratio struct {
	Name    string  `json:"name"` // "dedup/plain" or "dedup/default"
	Ingest  float64 `json:"ingest"`
	Settled float64 `json:"settled"`
	CPU     float64 `json:"cpu"`
}

func newReport(cfg config, c corpus, results []modeResult) *report {
	rp := &report{Commit: cfg.Commit, Machine: machine(), Date: time.Now().UTC().Format(time.RFC3339), Config: cfg, Corpus: c, Results: results}
	rp.summarize()
	return rp
}

// readReport reads a report a run saved (NAME.json) and sums it up again
// with the current code: plots and summaries can change without rerunning.
func readReport(path string) (*report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench-scale: %w", err)
	}
	var rp report
	if err := json.Unmarshal(b, &rp); err != nil {
		return nil, fmt.Errorf("bench-scale: %s: %w", path, err)
	}
	rp.summarize()
	return &rp, nil
}

// summarize fills rp.Summary from the configuration and results.
func (rp *report) summarize() {
	cfg, c, results := rp.Config, rp.Corpus, rp.Results
	s := &rp.Summary
	*s = summary{Commit: rp.Commit, Machine: rp.Machine, Pages: c.Stats.Pages, Batch: cfg.Batch, BatchBytes: cfg.BatchBytes, Policy: cfg.Policy, Reps: cfg.Reps}
	byMode := map[string]modeSummary{}
	for _, mode := range cfg.Modes {
		var rs []modeResult
		for _, r := range results {
			if r.Mode == mode {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		ms := summarize(mode, rs)
		byMode[mode] = ms
		s.Modes = append(s.Modes, ms)
		if mode == modeDedup {
			s.Eval, s.LostContent, s.Search = rs[0].Eval, rs[0].LostContent, rs[0].Search
		}
	}
	for _, mode := range []string{modeDedup, modeSuppress, modeWrap} {
		d, ok := byMode[mode]
		if !ok {
			continue
		}
		for _, other := range []string{modeNoDedup, modePlain, modeDefault, modeWrapNoDedup} {
			if o, ok := byMode[other]; ok {
				s.Ratios = append(s.Ratios, ratio{Name: mode + "/" + other,
					Ingest: d.IngestS / o.IngestS, Settled: d.SettledS / o.SettledS, CPU: d.CPUS / o.CPUS})
			}
		}
	}
}

func summarize(mode string, rs []modeResult) modeSummary {
	med := func(f func(modeResult) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		slices.Sort(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	first := rs[0]
	ms := modeSummary{
		Mode:         mode,
		IngestS:      med(func(r modeResult) float64 { return r.IngestS }),
		SettledS:     med(func(r modeResult) float64 { return r.SettledS }),
		CPUS:         med(func(r modeResult) float64 { return r.CPUS }),
		FirstDocsS:   med(func(r modeResult) float64 { return tenthRate(r, true) }),
		LastDocsS:    med(func(r modeResult) float64 { return tenthRate(r, false) }),
		FirstCPUMs:   med(func(r modeResult) float64 { return tenthCPU(r, true) }),
		LastCPUMs:    med(func(r modeResult) float64 { return tenthCPU(r, false) }),
		BleveBytes:   first.BleveBytes,
		StoreBytes:   first.StoreBytes,
		Duplicates:   first.Ingest.Duplicates,
		IndexedBleve: first.Ingest.Indexed,
		IndexErrors:  first.Ingest.Errors,
		Repetitions:  len(rs),
		Eval:         first.Eval,
		LostContent:  first.LostContent,
	}
	lo, hi := rs[0].IngestS, rs[0].IngestS
	for _, r := range rs {
		ms.PeakRSSAnon = max(ms.PeakRSSAnon, r.PeakRSSAnon)
		ms.PeakHeap = max(ms.PeakHeap, r.PeakHeap)
		ms.VmHWM = max(ms.VmHWM, r.VmHWM)
		for _, s := range r.Samples {
			ms.PeakRSSFile = max(ms.PeakRSSFile, s.RSSFile)
		}
		lo, hi = min(lo, r.IngestS), max(hi, r.IngestS)
	}
	ms.IngestSpreadS = hi - lo
	if ms.IngestS > 0 {
		ms.DocsPerS = float64(first.Pages) / ms.IngestS
	}
	if ms.LastDocsS > 0 {
		ms.LastFirst = ms.FirstDocsS / ms.LastDocsS
	}
	if ms.FirstCPUMs > 0 {
		ms.LastFirstCPU = ms.LastCPUMs / ms.FirstCPUMs
	}
	if first.Pages > 0 {
		ms.StorePerPage = float64(ms.StoreBytes) / float64(first.Pages)
		ms.BlevePerPage = float64(ms.BleveBytes) / float64(first.Pages)
	}
	return ms
}

// tenthRate is the rate of a run's first or last sample.
func tenthRate(r modeResult, first bool) float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	if first {
		return r.Samples[0].DocsPerS
	}
	return r.Samples[len(r.Samples)-1].DocsPerS
}

// tenthCPU is the CPU time per page of a run's first or last sample.
func tenthCPU(r modeResult, first bool) float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	if first {
		return r.Samples[0].CPUMsPerDoc
	}
	return r.Samples[len(r.Samples)-1].CPUMsPerDoc
}

// write writes NAME.csv, .svg, .json and .md into dir.
func (rp *report) write(dir, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	var csvBuf, svgBuf, mdBuf bytes.Buffer
	if err := rp.csv(&csvBuf); err != nil {
		return err
	}
	plot(&svgBuf, rp)
	rp.markdown(&mdBuf, name)
	js, err := json.MarshalIndent(rp, "", "  ")
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	for ext, b := range map[string][]byte{".csv": csvBuf.Bytes(), ".svg": svgBuf.Bytes(), ".md": mdBuf.Bytes(), ".json": append(js, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
			return fmt.Errorf("bench-scale: %w", err)
		}
	}
	return nil
}

var csvHeader = []string{"mode", "rep", "tenth", "pages", "elapsed_s", "slice_s", "docs_per_s", "cpu_s", "cpu_ms_per_doc", "duplicates",
	"rss_anon", "rss_anon_peak", "rss_file", "heap_live", "heap_objects", "heap_objects_peak", "go_total", "bleve_bytes", "store_bytes"}

// csv writes one row per tenth per mode and repetition; sizes in bytes.
func (rp *report) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	for _, r := range rp.Results {
		for _, s := range r.Samples {
			cw.Write([]string{r.Mode, strconv.Itoa(r.Rep), strconv.Itoa(s.Tenth), strconv.Itoa(s.Pages), f(s.ElapsedS), f(s.SliceS), f(s.DocsPerS), f(s.CPUS), f(s.CPUMsPerDoc),
				strconv.Itoa(s.Duplicates), u(s.RSSAnon), u(s.RSSAnonPeak), u(s.RSSFile), u(s.HeapLive), u(s.HeapObj), u(s.HeapPeak), u(s.GoTotal),
				i(s.BleveBytes), i(s.StoreBytes)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("bench-scale: csv: %w", err)
	}
	return nil
}

func mib(b uint64) string     { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
func mibI(b int64) string     { return mib(uint64(max(b, 0))) }
func ratioS(x float64) string { return fmt.Sprintf("%.2f", x) }

// text prints the summary for people.
func (rp *report) text(w io.Writer) error {
	s := rp.Summary
	c := rp.Corpus.Stats
	batch := strconv.Itoa(s.Batch)
	if s.BatchBytes > 0 {
		batch += fmt.Sprintf(" or %d KiB of text", s.BatchBytes>>10)
	}
	fmt.Fprintf(w, "bleve-dedup scale benchmark: %d pages (%d copies, %d Chinese, %d sites, %.1f KB text/page), batch %s, policy %s, %d repetition(s)\n",
		c.Pages, c.Copies, c.Chinese, c.Sites, float64(c.TextBytes)/float64(max(c.Pages, 1))/1024, batch, s.Policy, s.Reps)
	fmt.Fprintf(w, "commit %s; %s\n\n", s.Commit, s.Machine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tingest s\tdocs/s\tsettled s\tCPU s\tdocs/s first 10%\tlast 10%\tlast/first per page\tCPU ms/doc first 10%\tlast 10%\tlast/first\t")
	for _, m := range s.Modes {
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%.1f\t%.1f\t%.0f\t%.0f\t%.2f\t%.1f\t%.1f\t%.2f\t\n", m.Mode, m.IngestS, m.DocsPerS, m.SettledS, m.CPUS,
			m.FirstDocsS, m.LastDocsS, m.LastFirst, m.FirstCPUMs, m.LastCPUMs, m.LastFirstCPU)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tpeak RssAnon MiB\tpeak RssFile MiB\tpeak heap MiB\tVmHWM MiB\tbleve MiB\tstore MiB\tbleve B/page\tstore B/page\t")
	for _, m := range s.Modes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t\n", m.Mode, mib(m.PeakRSSAnon), mib(m.PeakRSSFile), mib(m.PeakHeap), mib(m.VmHWM),
			mibI(m.BleveBytes), mibI(m.StoreBytes), m.BlevePerPage, m.StorePerPage)
	}
	tw.Flush()
	if len(s.Ratios) > 0 {
		fmt.Fprintln(w)
		for _, r := range s.Ratios {
			fmt.Fprintf(w, "%-14s time to last batch %s, to settled index %s, CPU %s\n", r.Name, ratioS(r.Ingest), ratioS(r.Settled), ratioS(r.CPU))
		}
	}
	if s.Eval != nil || s.LostContent != nil || slices.ContainsFunc(s.Modes, func(m modeSummary) bool { return m.Eval != nil }) {
		fmt.Fprintln(w)
	}
	for _, m := range s.Modes {
		if m.Mode == modeSuppress && m.Eval != nil && m.LostContent != nil {
			e, l := m.Eval, m.LostContent
			fmt.Fprintf(w, "suppress: precision %.4f  recall %.4f; lost content %d of %d pages left out (lowest share %.2f)\n",
				e.Precision, e.Recall, l.Lost, l.LeftOut, l.MinShare)
		}
	}
	if e := s.Eval; e != nil {
		fmt.Fprintf(w, "clusters vs labels: precision %.4f  recall %.4f  F1 %.4f  ARI %.4f  (%d docs, %d gold pairs, %d predicted, %d true)\n",
			e.Precision, e.Recall, e.F1, e.ARI, e.Docs, e.GoldPairs, e.PredPairs, e.TruePairs)
	}
	if l := s.LostContent; l != nil {
		if l.LeftOut == 0 {
			fmt.Fprintf(w, "lost content: none, no page left out of the search index (policy %s)\n", s.Policy)
		} else {
			fmt.Fprintf(w, "lost content: %d of %d pages left out hold under %.0f%% of their distinct terms in their kept page (lowest share %.2f)\n",
				l.Lost, l.LeftOut, l.Bound*100, l.MinShare)
		}
		if len(l.IDs) > 0 {
			fmt.Fprintf(w, "  lost, lowest share first: %s\n", strings.Join(l.IDs, " "))
		}
	}
	if q := s.Search; q != nil {
		fmt.Fprintf(w, "\nsearch, %d queries x %d rounds (page of 10, %.0f matches per query on average):\n", q.Queries, q.Rounds, q.MeanMatches)
		fmt.Fprintf(w, "  collapsed p50 %.2f ms  p99 %.2f ms\n  plain     p50 %.2f ms  p99 %.2f ms\n  collapsed/plain p50 %.2f  p99 %.2f\n",
			q.CollapsedP50Ms, q.CollapsedP99Ms, q.PlainP50Ms, q.PlainP99Ms, q.RatioP50, q.RatioP99)
	}
	return nil
}

// markdown is the summary as committed under docs/.
func (rp *report) markdown(w io.Writer, name string) {
	fmt.Fprintf(w, "# Scale benchmark, %d pages\n\n", rp.Summary.Pages)
	fmt.Fprintf(w, "Measured %s at commit `%s` (%s) with\n`%s` (batch %d, policy %s, seed %d, %.0f%% copies).\n",
		rp.Date, rp.Commit, rp.Machine, rerun(rp.Config), rp.Config.Batch, rp.Config.Policy, rp.Config.Seed, rp.Config.DupShare*100)
	fmt.Fprintf(w, "Per tenth: [%s.csv](%s.csv); curves: [%s.svg](%s.svg); everything: [%s.json](%s.json).\n\n", name, name, name, name, name, name)
	fmt.Fprintf(w, "![rate, memory and disk against pages indexed](%s.svg)\n\n```\n", name)
	rp.text(w)
	fmt.Fprintf(w, "```\n")
}

// rerun is the command line that repeats a run: the script, N, and the
// flags that differ from their defaults.
func rerun(c config) string {
	d := defaultConfig()
	args := []string{"scripts/bench-scale.sh", strconv.Itoa(c.Pages)}
	add := func(differs bool, flag string, v any) {
		if differs {
			args = append(args, fmt.Sprintf("-%s %v", flag, v))
		}
	}
	add(c.Seed != d.Seed, "seed", c.Seed)
	add(c.DupShare != d.DupShare, "dup-share", c.DupShare)
	add(c.ChainShare != d.ChainShare, "chain-share", c.ChainShare)
	add(c.Skew != d.Skew, "skew", c.Skew)
	add(c.QuoteShare != d.QuoteShare, "quote-share", c.QuoteShare)
	add(c.WholeShare != d.WholeShare, "whole-share", c.WholeShare)
	add(c.Batch != d.Batch, "batch", c.Batch)
	add(c.BatchBytes != d.BatchBytes, "batch-bytes", c.BatchBytes)
	add(c.Policy != d.Policy, "policy", c.Policy)
	add(!slices.Equal(c.Modes, d.Modes), "modes", strings.Join(c.Modes, ","))
	add(c.Reps != d.Reps, "reps", c.Reps)
	add(c.Queries != d.Queries, "queries", c.Queries)
	add(c.Rounds != d.Rounds, "rounds", c.Rounds)
	add(c.BleveConfig != d.BleveConfig, "bleve-config", "'"+c.BleveConfig+"'")
	add(c.MemoryLimitMiB != d.MemoryLimitMiB, "memory-limit", c.MemoryLimitMiB)
	return strings.Join(args, " ")
}
