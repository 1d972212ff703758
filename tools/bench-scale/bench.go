package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/synth"
)

// config is the benchmark's command line.
type config struct {
	Pages    int     `json:"pages"`
	Seed     uint64  `json:"seed"`
	DupShare float64 `json:"dup_share"`
	// ChainShare and Skew grow large clusters of copies of copies (see
	// synth.Options); 0 in the default corpus.
	ChainShare float64 `json:"chain_share,omitempty"`
	Skew       float64 `json:"skew,omitempty"`
	// QuoteShare and WholeShare make distinct articles share text: block
	// quotes and whole short articles quoted (see synth.Options); 0 in the
	// default corpus.
	QuoteShare float64 `json:"quote_share,omitempty"`
	WholeShare float64 `json:"whole_share,omitempty"`
	Batch      int     `json:"batch"`
	// BatchBytes also ends a batch once its documents' text reaches it,
	// in every mode (0: batches end at Batch documents only), so that
	// plain bleve's batches are the dedup mode's. Default the indexer's
	// (indexer.RunOptions.BatchBytes).
	BatchBytes int      `json:"batch_bytes"`
	Policy     string   `json:"policy"`
	Modes      []string `json:"modes"`
	Reps       int      `json:"reps"`
	Queries    int      `json:"queries"`
	Rounds     int      `json:"rounds"`
	// BleveConfig is scorch's configuration for every mode, as JSON; ""
	// means bleve's own, so the plain modes run with the same scorch
	// settings as the filter's.
	BleveConfig string `json:"bleve_config,omitempty"`
	// MemoryLimitMiB is every child's Go soft memory limit, as the CLI
	// sets by default (0: none).
	MemoryLimitMiB int64  `json:"memory_limit_mib"`
	Work           string `json:"-"`
	Keep           bool   `json:"-"`
	Out            string `json:"-"`
	Name           string `json:"-"`
	Format         string `json:"-"`
	Data           string `json:"-"`
	Commit         string `json:"-"`
	Profile        string `json:"-"`
	Replot         string `json:"-"` // a saved NAME.json to report again instead of running
	CorpusOnly     bool   `json:"-"` // write the corpus under Work and stop
}

func defaultConfig() config {
	return config{
		Pages: 20000, Seed: 1, DupShare: 0.3, Batch: indexer.DefaultRunOptions().BatchSize,
		BatchBytes: indexer.DefaultRunOptions().BatchBytes, Policy: "mark", MemoryLimitMiB: 448,
		Modes: []string{modeDedup, modePlain, modeDefault}, Reps: 1, Queries: 200, Rounds: 3,
		Out: "docs", Format: "text",
	}
}

func (c config) validate() error {
	switch {
	case c.Pages <= 0:
		return fmt.Errorf("bench-scale: N = %d, want > 0", c.Pages)
	case c.Batch <= 0:
		return fmt.Errorf("bench-scale: --batch %d, want > 0", c.Batch)
	case c.Reps <= 0:
		return fmt.Errorf("bench-scale: --reps %d, want > 0", c.Reps)
	case c.Queries < 0 || c.Rounds <= 0:
		return fmt.Errorf("bench-scale: --queries %d and --rounds %d, want >= 0 and > 0", c.Queries, c.Rounds)
	case c.Format != "text" && c.Format != "json":
		return fmt.Errorf("bench-scale: --format %q, want text or json", c.Format)
	case len(c.Modes) == 0:
		return fmt.Errorf("bench-scale: no modes")
	}
	seen := map[string]bool{}
	for _, m := range c.Modes {
		if !slices.Contains(allModes, m) || seen[m] {
			return fmt.Errorf("bench-scale: --modes: %q is unknown or repeated (want some of %v)", m, allModes)
		}
		seen[m] = true
	}
	return nil
}

// corpus is a generated corpus on disk.
type corpus struct {
	Pages     string      `json:"-"`
	Labels    string      `json:"-"`
	Queries   string      `json:"-"` // "" when the search benchmark is off
	Stats     synth.Stats `json:"stats"`
	GenerateS float64     `json:"generate_s"`
}

// run generates the corpus, runs every mode in a child process and
// reports.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Replot != "" {
		rp, err := readReport(cfg.Replot)
		if err != nil {
			return err
		}
		if cfg.Name == "" {
			cfg.Name = strings.TrimSuffix(filepath.Base(cfg.Replot), ".json")
		}
		if cfg.Commit != "" { // a run whose build did not know its commit
			rp.Commit = cfg.Commit
			rp.summarize()
		}
		return output(rp, cfg, stdout, stderr)
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("scale-%d", cfg.Pages)
	}
	if cfg.Commit == "" {
		cfg.Commit = commit()
	}
	work := cfg.Work
	if work == "" {
		tmp, err := os.MkdirTemp("", "bench-scale-")
		if err != nil {
			return fmt.Errorf("bench-scale: %w", err)
		}
		work = tmp
		if !cfg.Keep {
			defer os.RemoveAll(tmp)
		}
	}
	c, err := prepareCorpus(cfg, work, stderr)
	if err != nil || cfg.CorpusOnly {
		if err == nil {
			fmt.Fprintf(stdout, "pages %s\nlabels %s\n", c.Pages, c.Labels)
		}
		return err
	}
	var results []modeResult
	for rep := range cfg.Reps {
		// The order alternates so that no mode always runs first (cold
		// caches) or after a given other (its leftover page cache).
		order := slices.Clone(cfg.Modes)
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, mode := range order {
			res, err := runMode(ctx, cfg, c, work, mode, rep, stderr)
			if err != nil {
				return err
			}
			results = append(results, res)
		}
	}
	return output(newReport(cfg, c, results), cfg, stdout, stderr)
}

// output writes a report's files and prints its summary.
func output(rp *report, cfg config, stdout, stderr io.Writer) error {
	if cfg.Out != "" {
		if err := rp.write(cfg.Out, cfg.Name); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s.{csv,svg,json,md}\n", filepath.Join(cfg.Out, cfg.Name))
	}
	if cfg.Format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rp.Summary)
	}
	return rp.text(stdout)
}

// prepareCorpus writes the corpus, its labels and the queries under work,
// or reuses those a run with the same settings left there.
func prepareCorpus(cfg config, work string, log io.Writer) (corpus, error) {
	name := fmt.Sprintf("corpus-%s-n%d-s%d-d%g", synth.Version, cfg.Pages, cfg.Seed, cfg.DupShare)
	if cfg.ChainShare > 0 || cfg.Skew > 0 {
		name += fmt.Sprintf("-c%g-k%g", cfg.ChainShare, cfg.Skew)
	}
	if cfg.QuoteShare > 0 || cfg.WholeShare > 0 {
		name += fmt.Sprintf("-q%g-w%g", cfg.QuoteShare, cfg.WholeShare)
	}
	dir := filepath.Join(work, name)
	c := corpus{Pages: filepath.Join(dir, "pages.jsonl"), Labels: filepath.Join(dir, "labels.jsonl")}
	if cfg.Queries > 0 {
		c.Queries = filepath.Join(dir, fmt.Sprintf("queries-%d.json", cfg.Queries))
	}
	done := filepath.Join(dir, "stats.json")
	if b, err := os.ReadFile(done); err == nil && json.Unmarshal(b, &c) == nil {
		if _, err := os.Stat(c.Queries); c.Queries == "" || err == nil {
			fmt.Fprintf(log, "reusing the corpus in %s\n", dir)
			return c, nil
		}
	}
	data := cfg.Data
	if data == "" {
		d, err := synth.FindData()
		if err != nil {
			return c, fmt.Errorf("bench-scale: %w (give --data)", err)
		}
		data = d
	}
	start := time.Now()
	m, err := synth.Load(data)
	if err != nil {
		return c, err
	}
	o := synth.DefaultOptions(cfg.Pages)
	o.Seed, o.DupShare, o.ChainShare, o.Skew = cfg.Seed, cfg.DupShare, cfg.ChainShare, cfg.Skew
	o.QuoteShare, o.WholeShare = cfg.QuoteShare, cfg.WholeShare
	pages, err := m.Pages(o)
	if err != nil {
		return c, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return c, fmt.Errorf("bench-scale: %w", err)
	}
	os.Remove(done)
	qs := synth.NewQuerySampler(cfg.Queries, cfg.Pages, cfg.Seed)
	err = writeFiles(c.Pages, c.Labels, func(pw, lw io.Writer) error {
		c.Stats, err = synth.WriteJSONL(pages, pw, lw, qs.Offer)
		return err
	})
	if err != nil {
		return c, err
	}
	if c.Queries != "" {
		var texts []string
		for _, q := range qs.Queries() {
			texts = append(texts, q.Text)
		}
		b, _ := json.MarshalIndent(texts, "", " ")
		if err := os.WriteFile(c.Queries, b, 0o644); err != nil {
			return c, fmt.Errorf("bench-scale: %w", err)
		}
	}
	c.GenerateS = time.Since(start).Seconds()
	b, _ := json.MarshalIndent(c, "", "  ")
	if err := os.WriteFile(done, b, 0o644); err != nil {
		return c, fmt.Errorf("bench-scale: %w", err)
	}
	fmt.Fprintf(log, "generated %d pages (%d copies, %d Chinese, %d sites, %.0f MB of text) in %.1fs\n",
		c.Stats.Pages, c.Stats.Copies, c.Stats.Chinese, c.Stats.Sites, float64(c.Stats.TextBytes)/(1<<20), c.GenerateS)
	return c, nil
}

// writeFiles creates two buffered files for fill and closes them.
func writeFiles(a, b string, fill func(aw, bw io.Writer) error) error {
	fa, err := os.Create(a)
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	defer fa.Close()
	fb, err := os.Create(b)
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	defer fb.Close()
	wa, wb := bufio.NewWriterSize(fa, 1<<20), bufio.NewWriterSize(fb, 1<<16)
	if err := fill(wa, wb); err != nil {
		return err
	}
	err = errors.Join(wa.Flush(), wb.Flush(), fa.Close(), fb.Close())
	if err != nil {
		return fmt.Errorf("bench-scale: %w", err)
	}
	return nil
}

// runMode runs one mode in a child process: the benchmark re-executes its
// own binary, so that each mode's memory figures are its own.
func runMode(ctx context.Context, cfg config, c corpus, work, mode string, rep int, log io.Writer) (modeResult, error) {
	var res modeResult
	exe, err := os.Executable()
	if err != nil {
		return res, fmt.Errorf("bench-scale: %w", err)
	}
	name := fmt.Sprintf("%s-%d", mode, rep)
	cc := childConfig{
		Mode: mode, Rep: rep, Corpus: c.Pages, Labels: c.Labels, Queries: c.Queries,
		Dir: filepath.Join(work, "index-"+name), Result: filepath.Join(work, "result-"+name+".json"),
		Pages: c.Stats.Pages, Batch: cfg.Batch, BatchBytes: cfg.BatchBytes, Policy: cfg.Policy, Rounds: cfg.Rounds, Profile: cfg.Profile,
		BleveConfig: cfg.BleveConfig, MemoryLimitMiB: cfg.MemoryLimitMiB,
	}
	if err := os.RemoveAll(cc.Dir); err != nil {
		return res, fmt.Errorf("bench-scale: %w", err)
	}
	if !cfg.Keep {
		defer os.RemoveAll(cc.Dir)
	}
	ccPath := filepath.Join(work, "child-"+name+".json")
	b, _ := json.Marshal(cc)
	if err := os.WriteFile(ccPath, b, 0o644); err != nil {
		return res, fmt.Errorf("bench-scale: %w", err)
	}
	fmt.Fprintf(log, "== %s (repetition %d)\n", mode, rep+1)
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"="+ccPath)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("bench-scale: %s: %w", name, err)
	}
	b, err = os.ReadFile(cc.Result)
	if err != nil {
		return res, fmt.Errorf("bench-scale: %s: %w", name, err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return res, fmt.Errorf("bench-scale: %s: %w", name, err)
	}
	return res, nil
}

// childMain is a child process' whole life: read its config and run.
func childMain(ctx context.Context, path string, log io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("bench-scale: child: %w", err)
	}
	var cc childConfig
	if err := json.Unmarshal(b, &cc); err != nil {
		return fmt.Errorf("bench-scale: child: %w", err)
	}
	return runChild(ctx, cc, log)
}

// commit names the source measured: git's HEAD, "+dirty" when files
// other than docs/ (where the outputs go) were modified; else the build's
// VCS stamp.
func commit() string {
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--", ":(top)", ":(top,exclude)docs").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			rev += "+dirty"
		}
		return rev
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" && dirty {
			rev += "+dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return "unknown"
}

// machine describes where the figures were taken.
func machine() string {
	return fmt.Sprintf("%s %s/%s, %d CPUs (GOMAXPROCS %d)", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
}
