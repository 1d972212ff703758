// Command wrapbench measures indexer.Wrap as a bleve user meets it: the
// pages of a JSONL corpus indexed as the user's own struct type
// {URL, Title, HTML} in batches, through Wrap (HTMLField; policy
// -policy, mark by default) and into a
// plain bleve index with the same mapping and batches (with -text, as
// {URL, Title, Text}, the main text extracted before the runs, through
// Wrap with TextFields: what plain bleve then indexes is the same), the modes
// alternating; and an existing plain index of the same pages adopted
// (Index.Adopt). It reports each run's time, CPU and peak resident memory
// (anonymous and file-backed, read every 20 ms), the bytes a page the
// bleve index and the filter's store take on disk, the ratio of the
// medians, and the clusters' pairwise precision, recall and F1 against
// the labels.
//
//	go run ./tools/wrapbench -pages ../shared/data/neardup/dev-corpus.jsonl.gz -labels ../shared/data/neardup/dev-labels.jsonl -reps 3
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/du"
	"github.com/bleve-dedup/bleve-dedup/internal/procmem"
	"github.com/bleve-dedup/bleve-dedup/page"
)

// webPage is the user's document type.
type webPage struct {
	URL   string
	Title string
	HTML  string
	Text  string
}

// doc is a document of the runs with its id.
type doc struct {
	id   string
	page webPage
}

type run struct {
	mode      string
	wall, cpu time.Duration
	scores    *eval.Run
	// peakAnon and peakFile are the most resident anonymous and
	// file-backed memory seen while the run went on (the heap given back
	// to the system before it).
	peakAnon, peakFile uint64
	// bleveBytes and storeBytes are what the bleve index and the filter's
	// store take on disk once closed.
	bleveBytes, storeBytes int64
}

func main() {
	pagesPath := flag.String("pages", "", "JSONL corpus of pages (required)")
	labelsPath := flag.String("labels", "", "labels of the corpus ({\"id\",\"cluster\"} a line)")
	reps := flag.Int("reps", 3, "repetitions of each mode")
	batch := flag.Int("batch", 1000, "documents per batch")
	work := flag.String("work", "", "directory for the indexes (default: a temporary one)")
	modesFlag := flag.String("modes", "wrap,plain,adopt", "the modes to run, comma-separated")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	textOnly := flag.Bool("text", false, "index each page's main text (extracted before the runs) instead of its HTML")
	policyName := flag.String("policy", "mark", "the filter's policy: mark, suppress or replace")
	flag.StringVar(&memProfile, "memprofile", "", "write the heap in use at the end of each run's writes, before the index closes, to this file (the last run's)")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	policy, err := dedupfilter.ParsePolicy(*policyName)
	if err != nil {
		log.Fatal(err)
	}
	if *pagesPath == "" {
		log.Fatal("-pages is required")
	}
	var pages []page.Page
	for p, err := range page.Read([]string{*pagesPath}, page.DefaultOptions()) {
		if err == nil && p.HTML != "" {
			pages = append(pages, p)
		}
	}
	var docs []doc
	for _, p := range pages {
		d := webPage{URL: p.URL, Title: p.Title, HTML: p.HTML}
		if *textOnly {
			c, err := extract.DefaultOptions().HTMLContext(context.Background(), p.HTML, p.URL)
			if err != nil && !errors.Is(err, extract.ErrNoContent) {
				log.Fatalf("%s: %v", p.ID, err)
			}
			d.HTML, d.Text = "", strings.Join(c.Paragraphs, "\n")
		}
		docs = append(docs, doc{p.ID, d})
	}
	var gold eval.Clustering
	if *labelsPath != "" {
		f, err := os.Open(*labelsPath)
		if err != nil {
			log.Fatal(err)
		}
		gold, err = eval.ReadLabels(f, *labelsPath)
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
	}
	dir := *work
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "wrapbench-"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	fmt.Printf("%d pages, batches of %d\n", len(docs), *batch)
	var runs []run
	for r := range *reps {
		modes := strings.Split(*modesFlag, ",")
		if r%2 == 1 && len(modes) > 1 {
			modes[0], modes[1] = modes[1], modes[0] // alternate the first two
		}
		for _, m := range modes {
			d := filepath.Join(dir, fmt.Sprintf("%s-%d", m, r))
			rn, err := measure(m, d, docs, *batch, *textOnly, policy, gold)
			if err != nil {
				log.Fatalf("%s: %v", m, err)
			}
			runs = append(runs, rn)
			line := fmt.Sprintf("%-6s rep %d: %7.2f s, CPU %7.2f s, peak RssAnon %4d MiB, RssFile %4d MiB", m, r+1, rn.wall.Seconds(), rn.cpu.Seconds(), rn.peakAnon>>20, rn.peakFile>>20)
			if la, err := os.ReadFile("/proc/loadavg"); err == nil {
				line += ", load " + strings.Join(strings.Fields(string(la))[:3], " ")
			}
			line += fmt.Sprintf(", bleve %d B/page", rn.bleveBytes/int64(len(docs)))
			if rn.storeBytes > 0 {
				line += fmt.Sprintf(", store %d B/page", rn.storeBytes/int64(len(docs)))
			}
			if rn.scores != nil {
				line += fmt.Sprintf(", P %.4f R %.4f F1 %.4f", rn.scores.Precision, rn.scores.Recall, rn.scores.F1)
			}
			fmt.Println(line)
			os.RemoveAll(d)
		}
	}
	med := func(mode string, cpu bool) float64 {
		var xs []float64
		for _, r := range runs {
			if r.mode == mode {
				if cpu {
					xs = append(xs, r.cpu.Seconds())
				} else {
					xs = append(xs, r.wall.Seconds())
				}
			}
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	has := func(mode string) bool { return slices.ContainsFunc(runs, func(r run) bool { return r.mode == mode }) }
	if has("wrap") && has("plain") {
		fmt.Printf("wrap/plain: time %.2f, CPU %.2f (medians)\n", med("wrap", false)/med("plain", false), med("wrap", true)/med("plain", true))
	}
	if has("adopt") {
		fmt.Printf("adopt (after a plain index exists): median %.2f s\n", med("adopt", false))
	}
}

// newMapping is the users' mapping: bleve's default with the filter's
// cluster field.
func newMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	indexer.AddFilterFields(m)
	return m
}

// measure runs one mode into dir.
func measure(mode, dir string, docs []doc, batch int, textOnly bool, policy dedupfilter.Policy, gold eval.Clustering) (run, error) {
	rn := run{mode: mode}
	idx, err := bleve.New(filepath.Join(dir, "idx"), newMapping())
	if err != nil {
		return rn, err
	}
	var target bleve.Index = idx
	var w *indexer.Index
	wrap := func() error {
		var err error
		o := indexer.Options{Store: filepath.Join(dir, "dedup"),
			HTMLField: "HTML", TitleField: "Title", URLField: "URL", Policy: policy}
		if textOnly {
			o.HTMLField, o.TextFields = "", []string{"Text"}
		}
		w, err = indexer.Wrap(idx, o)
		target = w
		return err
	}
	if mode == "adopt" {
		if err := write(idx, docs, batch); err != nil {
			return rn, err
		}
	}
	debug.FreeOSMemory()
	stop := sampleMemory(&rn)
	defer stop()
	start, cpu0 := time.Now(), cpuTime()
	switch mode {
	case "wrap":
		if err := wrap(); err != nil {
			return rn, err
		}
		err = write(target, docs, batch)
	case "plain":
		err = write(target, docs, batch)
	case "adopt":
		if err := wrap(); err != nil {
			return rn, err
		}
		_, err = w.Adopt(context.Background(), indexer.AdoptOptions{BatchSize: batch})
	}
	if err != nil {
		return rn, err
	}
	rn.wall, rn.cpu = time.Since(start), cpuTime()-cpu0
	if memProfile != "" {
		if err := writeHeap(memProfile); err != nil {
			return rn, err
		}
	}
	if w != nil && gold != nil {
		pred, err := eval.Predicted(w.Filter())
		if err != nil {
			return rn, err
		}
		s := eval.ScoreRun(pred, gold)
		rn.scores = &s
	}
	if err := target.Close(); err != nil {
		return rn, err
	}
	rn.bleveBytes, rn.storeBytes = du.Bytes(filepath.Join(dir, "idx")), du.Bytes(filepath.Join(dir, "dedup"))
	return rn, nil
}

// memProfile is -memprofile.
var memProfile string

// writeHeap writes the heap profile, after a collection, to path.
func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	return errors.Join(pprof.WriteHeapProfile(f), f.Close())
}

// write indexes docs into idx in batches.
func write(idx bleve.Index, docs []doc, size int) error {
	b := idx.NewBatch()
	for i, d := range docs {
		if err := b.Index(d.id, d.page); err != nil {
			return err
		}
		if b.Size() == size || i == len(docs)-1 {
			if err := idx.Batch(b); err != nil {
				return err
			}
			b = idx.NewBatch()
		}
	}
	return nil
}

// sampleMemory records rn's peak resident memory every 20 ms until the
// returned function is called.
func sampleMemory(rn *run) func() {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			m := procmem.Read()
			rn.peakAnon, rn.peakFile = max(rn.peakAnon, m.RSSAnon), max(rn.peakFile, m.RSSFile)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-ended }
}

// cpuTime is the process' user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
