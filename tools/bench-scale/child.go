package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// childEnv marks a process started by the benchmark to run one mode: the
// command (or a test binary) re-executes itself with it set.
const childEnv = "BENCH_SCALE_CHILD"

// childConfig is what a child process is told.
type childConfig struct {
	Mode    string `json:"mode"`
	Rep     int    `json:"rep"`
	Corpus  string `json:"corpus"`  // pages, JSONL
	Labels  string `json:"labels"`  // labels, JSONL ("" skips scoring)
	Queries string `json:"queries"` // queries, JSON ("" skips searching)
	Dir     string `json:"dir"`     // index directory, created
	Result  string `json:"result"`  // where the result JSON goes
	Pages   int    `json:"pages"`   // pages in the corpus
	Batch   int    `json:"batch"`
	// BatchBytes: see config.
	BatchBytes int    `json:"batch_bytes"`
	Policy     string `json:"policy"`
	Rounds     int    `json:"rounds"`  // passes over the queries
	Profile    string `json:"profile"` // directory for CPU and heap profiles ("" for none)
	// BleveConfig is scorch's configuration, JSON; "" for the indexer's
	// default.
	BleveConfig string `json:"bleve_config,omitempty"`
	// MemoryLimitMiB is the Go runtime's soft memory limit (0: none), the
	// same for every mode.
	MemoryLimitMiB int64 `json:"memory_limit_mib"`
}

// sample is the state of a run at one tenth of the corpus.
type sample struct {
	Tenth    int     `json:"tenth"`
	Pages    int     `json:"pages"`     // documents read
	ElapsedS float64 `json:"elapsed_s"` // since indexing started
	SliceS   float64 `json:"slice_s"`   // since the previous sample
	DocsPerS float64 `json:"docs_per_s"`
	// CPU time of the process: on a shared machine it wanders less than
	// wall time when other jobs come and go.
	CPUS        float64 `json:"cpu_s"`          // since indexing started
	CPUMsPerDoc float64 `json:"cpu_ms_per_doc"` // during the slice
	Duplicates  int     `json:"duplicates"`
	RSSAnon     uint64  `json:"rss_anon"`
	RSSAnonPeak uint64  `json:"rss_anon_peak"` // highest seen during the slice
	RSSFile     uint64  `json:"rss_file"`
	HeapLive    uint64  `json:"heap_live"`
	HeapObj     uint64  `json:"heap_objects"`
	HeapPeak    uint64  `json:"heap_objects_peak"` // highest seen during the slice
	GoTotal     uint64  `json:"go_total"`
	BleveBytes  int64   `json:"bleve_bytes"`
	StoreBytes  int64   `json:"store_bytes"` // everything beside bleve (dedup mode)
}

// searchStats are the latencies of the search benchmark.
type searchStats struct {
	Queries        int     `json:"queries"`
	Rounds         int     `json:"rounds"`
	CollapsedP50Ms float64 `json:"collapsed_p50_ms"`
	CollapsedP99Ms float64 `json:"collapsed_p99_ms"`
	PlainP50Ms     float64 `json:"plain_p50_ms"`
	PlainP99Ms     float64 `json:"plain_p99_ms"`
	RatioP50       float64 `json:"ratio_p50"` // collapsed / plain
	RatioP99       float64 `json:"ratio_p99"`
	MeanMatches    float64 `json:"mean_matches"` // documents matching a query, on average
}

// lostContent is the content the filter left out of the search index
// (eval.Lost), as the CLI's eval reports it: the pages left out (none
// under policy mark, which indexes every page), those of them holding
// under Bound of their distinct terms in their cluster's kept page, the
// lowest share (1 when none is left out) and the lost pages of lowest
// share.
type lostContent struct {
	LeftOut  int     `json:"left_out"`
	Lost     int     `json:"lost"`
	MinShare float64 `json:"lost_min_share"`
	// Bound is the share measured against (eval.LostShare), kept so that
	// a saved report says what its figures mean if the bound changes.
	Bound float64  `json:"lost_bound"`
	IDs   []string `json:"lost_ids,omitempty"`
}

func newLostContent(l eval.Lost, bound float64) *lostContent {
	lc := &lostContent{LeftOut: l.LeftOut, Lost: l.Lost, MinShare: l.MinShare, Bound: bound}
	for _, p := range l.Worst {
		lc.IDs = append(lc.IDs, p.ID)
	}
	return lc
}

// modeResult is what a child reports.
type modeResult struct {
	Mode        string           `json:"mode"`
	Rep         int              `json:"rep"`
	Pages       int              `json:"pages"`
	Batch       int              `json:"batch"`
	Ingest      ingest           `json:"ingest"`
	IngestS     float64          `json:"ingest_s"`  // until the last batch returned
	SettledS    float64          `json:"settled_s"` // until bleve's merges were done
	CPUS        float64          `json:"cpu_s"`     // CPU time until settled
	PeakRSSAnon uint64           `json:"peak_rss_anon"`
	PeakHeap    uint64           `json:"peak_heap_objects"`
	VmHWM       uint64           `json:"vm_hwm"`
	BleveBytes  int64            `json:"bleve_bytes"` // settled
	StoreBytes  int64            `json:"store_bytes"`
	Stores      map[string]int64 `json:"stores,omitempty"`
	Samples     []sample         `json:"samples"`
	Eval        *eval.Scores     `json:"eval,omitempty"`
	Unindexed   int              `json:"unindexed,omitempty"`    // labelled pages missing from the clusters
	LostContent *lostContent     `json:"lost_content,omitempty"` // dedup mode only
	Search      *searchStats     `json:"search,omitempty"`
}

// recorder takes a sample each time the run passes a tenth of the corpus.
type recorder struct {
	e       engine
	n       int
	start   time.Time
	cpu0    time.Duration
	next    int // the next tenth to record
	last    sample
	peaks   *peaks
	samples []sample
	log     io.Writer
	mode    string
	prof    *profiler // nil without -profile
	profErr error     // the first profiling failure; profiling stops there
}

// progress is called after each batch. A batch that passes several
// tenths (a corpus smaller than ten batches) gives one sample, labelled
// with the last tenth it passed.
func (r *recorder) progress(read, dups int) {
	tenth := 0
	for r.next <= 10 && read >= (r.n*r.next+9)/10 {
		tenth = r.next
		r.next++
	}
	if tenth == 0 {
		return
	}
	now := time.Since(r.start)
	m := readMemory()
	anonPeak, heapPeak := r.peaks.take()
	s := sample{
		Tenth: tenth, Pages: read, ElapsedS: now.Seconds(), Duplicates: dups,
		RSSAnon: m.RSSAnon, RSSAnonPeak: max(anonPeak, m.RSSAnon), RSSFile: m.RSSFile,
		HeapLive: m.HeapLive, HeapObj: m.HeapObj, HeapPeak: max(heapPeak, m.HeapObj), GoTotal: m.GoTotal,
	}
	s.SliceS = s.ElapsedS - r.last.ElapsedS
	if s.SliceS > 0 {
		s.DocsPerS = float64(read-r.last.Pages) / s.SliceS
	}
	s.CPUS = (cpuTime() - r.cpu0).Seconds()
	if read > r.last.Pages {
		s.CPUMsPerDoc = (s.CPUS - r.last.CPUS) * 1000 / float64(read-r.last.Pages)
	}
	var stores map[string]int64
	s.BleveBytes, stores = r.e.disk()
	for _, b := range stores {
		s.StoreBytes += b
	}
	r.samples = append(r.samples, s)
	r.last = s
	if err := r.prof.tenth(tenth); err != nil && r.profErr == nil {
		r.profErr = err
		r.prof.stop()
		r.prof = nil
	}
	fmt.Fprintf(r.log, "%s: %d/%d pages, %.0f docs/s (slice %.1fs, CPU %.1f ms/doc), RssAnon %s, RssFile %s, heap %s, bleve %s, store %s\n",
		r.mode, read, r.n, s.DocsPerS, s.SliceS, s.CPUMsPerDoc, mb(s.RSSAnon), mb(s.RSSFile), mb(s.HeapLive), mb(uint64(s.BleveBytes)), mb(uint64(s.StoreBytes)))
}

func mb(b uint64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }

// runChild indexes the corpus in one mode and writes the result file.
func runChild(ctx context.Context, cc childConfig, log io.Writer) error {
	if cc.Pages <= 0 || cc.Batch <= 0 {
		return fmt.Errorf("bench-scale: child: pages %d and batch %d must be positive", cc.Pages, cc.Batch)
	}
	if cc.MemoryLimitMiB > 0 {
		debug.SetMemoryLimit(cc.MemoryLimitMiB << 20)
	}
	opened, err := openEngine(cc.Mode, cc.Dir, cc.Policy, cc.BleveConfig)
	if err != nil {
		return err
	}
	e := &closeOnce{engine: opened}
	defer e.close() // after an error; the normal path closes before writing the result
	pk := startPeaks(200 * time.Millisecond)
	defer pk.close()
	rec := &recorder{e: e, n: cc.Pages, next: 1, peaks: pk, log: log, mode: cc.Mode}
	pages := page.Read([]string{cc.Corpus}, page.DefaultOptions())
	prof, err := startProfiler(cc)
	if err != nil {
		return err
	}
	defer prof.stop()
	rec.prof = prof
	cpu0 := cpuTime()
	rec.start, rec.cpu0 = time.Now(), cpu0
	st, err := e.index(ctx, pages, cc.Batch, cc.BatchBytes, rec.progress)
	if err == nil {
		err = rec.profErr
	}
	if err != nil {
		return err
	}
	res := modeResult{Mode: cc.Mode, Rep: cc.Rep, Pages: cc.Pages, Batch: cc.Batch, Ingest: st}
	res.IngestS = time.Since(rec.start).Seconds()
	if err := e.settle(ctx); err != nil {
		return err
	}
	res.SettledS = time.Since(rec.start).Seconds()
	res.CPUS = (cpuTime() - cpu0).Seconds()
	res.PeakRSSAnon, res.PeakHeap = pk.all()
	res.VmHWM = readMemory().VmHWM
	res.BleveBytes, res.Stores = e.disk()
	for _, b := range res.Stores {
		res.StoreBytes += b
	}
	res.Samples = rec.samples
	fmt.Fprintf(log, "%s: indexed %d pages in %.1fs (settled %.1fs, CPU %.1fs), %d duplicates, %d errors\n",
		cc.Mode, st.Read, res.IngestS, res.SettledS, res.CPUS, st.Duplicates, st.Errors)

	if filtered(cc.Mode) && cc.Labels != "" {
		if err := score(e, cc.Labels, &res); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: P %.4f R %.4f F1 %.4f ARI %.4f\n", cc.Mode, res.Eval.Precision, res.Eval.Recall, res.Eval.F1, res.Eval.ARI)
	}
	if filtered(cc.Mode) {
		l, err := e.lost(eval.LostShare)
		if err != nil {
			return err
		}
		res.LostContent = newLostContent(l, eval.LostShare)
		fmt.Fprintf(log, "%s: lost content: %d of %d pages left out (lowest share %.2f)\n", cc.Mode, l.Lost, l.LeftOut, l.MinShare)
	}
	if cc.Mode == modeDedup && cc.Queries != "" {
		var profile string
		if cc.Profile != "" {
			profile = filepath.Join(cc.Profile, fmt.Sprintf("cpu-search-%s-%d.pprof", cc.Mode, cc.Rep))
		}
		s, err := searchBench(ctx, e, cc.Queries, cc.Rounds, profile)
		if err != nil {
			return err
		}
		res.Search = s
		fmt.Fprintf(log, "%s: search p50 collapsed %.2fms plain %.2fms (%.2fx), p99 %.2fms %.2fms (%.2fx)\n", cc.Mode,
			s.CollapsedP50Ms, s.PlainP50Ms, s.RatioP50, s.CollapsedP99Ms, s.PlainP99Ms, s.RatioP99)
	}
	if err := e.close(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	if err := os.WriteFile(cc.Result, b, 0o644); err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	return nil
}

// score compares the run's clusters with the labels, as the CLI's eval
// does: a labelled page missing from the store is a singleton.
func score(e engine, labels string, res *modeResult) error {
	f, err := os.Open(labels)
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	gold, err := eval.ReadLabels(f, labels)
	f.Close()
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	pred := eval.Clustering{}
	if err := e.clusters(func(id, cluster string) { pred[id] = cluster }); err != nil {
		return fmt.Errorf("bench-scale: clusters: %w", err)
	}
	for id := range gold {
		if _, ok := pred[id]; !ok {
			pred[id] = "unindexed:" + id
			res.Unindexed++
		}
	}
	s := eval.Score(pred, gold)
	res.Eval = &s
	return nil
}

// searchBench runs every query collapsed and plain, interleaved (the order
// alternating per query, so that load from other processes and cache
// warmth hit both alike), after one untimed warm-up pass.
// With a profile path, the timed rounds are CPU-profiled into it.
func searchBench(ctx context.Context, e engine, path string, rounds int, profile string) (*searchStats, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench-scale: %w", err)
	}
	var qs []string
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("bench-scale: %s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("bench-scale: %s: no queries", path)
	}
	if err := e.parse(qs); err != nil {
		return nil, err
	}
	rounds = max(rounds, 1)
	var matches uint64
	for i := range qs {
		for _, c := range []bool{true, false} {
			n, err := e.search(ctx, i, c)
			if err != nil {
				return nil, fmt.Errorf("bench-scale: query %q: %w", qs[i], err)
			}
			matches += n
		}
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return nil, fmt.Errorf("bench-scale: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("bench-scale: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var col, pl []time.Duration
	for r := range rounds {
		for i := range qs {
			order := []bool{true, false}
			if (i+r)%2 == 1 {
				order = []bool{false, true}
			}
			for _, c := range order {
				t := time.Now()
				if _, err := e.search(ctx, i, c); err != nil {
					return nil, fmt.Errorf("bench-scale: query %q: %w", qs[i], err)
				}
				d := time.Since(t)
				if c {
					col = append(col, d)
				} else {
					pl = append(pl, d)
				}
			}
		}
	}
	s := &searchStats{Queries: len(qs), Rounds: rounds, MeanMatches: float64(matches) / float64(2*len(qs))}
	s.CollapsedP50Ms, s.CollapsedP99Ms = ms(percentile(col, 50)), ms(percentile(col, 99))
	s.PlainP50Ms, s.PlainP99Ms = ms(percentile(pl, 50)), ms(percentile(pl, 99))
	s.RatioP50, s.RatioP99 = s.CollapsedP50Ms/s.PlainP50Ms, s.CollapsedP99Ms/s.PlainP99Ms
	return s, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// percentile is the nearest-rank p-th percentile of ds (0 for none).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// closeOnce lets a deferred close follow an explicit one: bleve's Close
// panics when called twice.
type closeOnce struct {
	engine
	once sync.Once
	err  error
}

func (c *closeOnce) close() error {
	c.once.Do(func() { c.err = c.engine.close() })
	return c.err
}

// profiler writes a CPU profile of each tenth of the indexing
// (cpu-MODE-REP-tNN.pprof) and a heap profile at its end
// (heap-MODE-REP-tNN.pprof), so that where time and memory go can be
// compared between early and late tenths (go tool pprof -diff_base); the
// tenths of a run merge with go tool pprof cpu-MODE-REP-t*.pprof.
type profiler struct {
	dir, name string
	cpu       *os.File // the profile running, nil when none
}

// startProfiler starts the first tenth's CPU profile; nil when cc asks
// for no profiles.
func startProfiler(cc childConfig) (*profiler, error) {
	if cc.Profile == "" {
		return nil, nil
	}
	if err := os.MkdirAll(cc.Profile, 0o755); err != nil {
		return nil, fmt.Errorf("bench-scale: %w", err)
	}
	p := &profiler{dir: cc.Profile, name: fmt.Sprintf("%s-%d", cc.Mode, cc.Rep)}
	return p, p.start(1)
}

func (p *profiler) start(tenth int) error {
	f, err := os.Create(filepath.Join(p.dir, fmt.Sprintf("cpu-%s-t%02d.pprof", p.name, tenth)))
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("bench-scale: %w", err)
	}
	p.cpu = f
	return nil
}

// tenth ends the profiles of a tenth and starts the next CPU profile.
func (p *profiler) tenth(tenth int) error {
	if p == nil || p.cpu == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.cpu.Close()
	p.cpu = nil
	h, herr := os.Create(filepath.Join(p.dir, fmt.Sprintf("heap-%s-t%02d.pprof", p.name, tenth)))
	if herr == nil {
		herr = errors.Join(pprof.Lookup("heap").WriteTo(h, 0), h.Close())
	}
	if err = errors.Join(err, herr); err != nil {
		return fmt.Errorf("bench-scale: profile: %w", err)
	}
	if tenth < 10 {
		return p.start(tenth + 1)
	}
	return nil
}

// stop ends a profile still running (a run that stopped early).
func (p *profiler) stop() {
	if p != nil && p.cpu != nil {
		pprof.StopCPUProfile()
		p.cpu.Close()
		p.cpu = nil
	}
}
