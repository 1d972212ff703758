// Command stageprofile prints where a page's CPU goes, stage by stage,
// from the CPU profiles bench-scale writes with -profile:
//
//	go run ./tools/bench-scale -n 100000 -modes dedup,nodedup -queries 0 -out "" -profile DIR
//	go run ./tools/stageprofile -n 100000 DIR
//	go run ./tools/stageprofile -n 1000000 -tenth 10 DIR   # the last tenth alone
//
// Every mode's profiles (cpu-MODE-REP-tNN.pprof, all repetitions and
// tenths) are merged, and each stage is the CPU of the samples whose
// stack holds one of its functions (cumulative: a stage includes what it
// calls, and stages nest or overlap where one calls another), divided by
// the pages indexed in all repetitions. With -tenth, only the profiles of
// that tenth of each repetition count, and a tenth of the pages: how a
// stage's cost a page moves as the index grows. The last column is the
// first mode's figure less the second's: the filter's share where the
// modes are dedup and nodedup (or plain).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// stage is a row of the table: the samples with a frame whose function
// matches fn.
type stage struct {
	name string
	fn   *regexp.Regexp
}

// stages are the steps a page passes, as the indexer names them.
var stages = []stage{
	{"reading the input", regexp.MustCompile(`^github\.com/bleve-dedup/bleve-dedup/page\.\(\*reader\)\.input$`)},
	{"staging a page (content hash, URL owner, payload)", regexp.MustCompile(`indexer\.\(\*engine\)\.stagePage$`)},
	{"filter: ordered decisions (Decider.Decide)", regexp.MustCompile(`dedupfilter\.\(\*Decider\)\.Decide$`)},
	{"— site template text (Decider.sitePlan)", regexp.MustCompile(`dedupfilter\.\(\*Decider\)\.sitePlan$`)},
	{"— candidates and verification (Filter.planLocal)", regexp.MustCompile(`dedupfilter\.\(\*Filter\)\.planLocal$`)},
	{"— placing and writing (Filter.add)", regexp.MustCompile(`dedupfilter\.\(\*Filter\)\.add$`)},
	{"filter: features on every core (Decider.analyze)", regexp.MustCompile(`dedupfilter\.\(\*Decider\)\.analyze\.func1$`)},
	{"— analysis (analyzer.Analyze, Analyzer.SetLeft)", regexp.MustCompile(`analyzer\.\(\*Analyzer\)\.(Analyze|Terms|SetLeft)$`)},
	{"— signatures (similarity.Of)", regexp.MustCompile(`similarity\.Of$`)},
	{"store: Badger's writes", regexp.MustCompile(`badger/v4\.\(\*DB\)\.writeRequests$`)},
	{"store: Badger's compactions", regexp.MustCompile(`badger/v4\.\(\*levelsController\)\.(runCompactor|subcompact)`)},
	{"bleve: analysis ahead of the batch (docbody.Analysed)", regexp.MustCompile(`docbody\.Analysed$`)},
	{"— words (bleve's unicode tokenizer, or unicodewords in its place)", regexp.MustCompile(`(tokenizer/unicode\.\(\*UnicodeTokenizer\)|unicodewords\.\(\*Tokenizer\))\.Tokenize$`)},
	{"— cjk filters (bleve's width, lower-case and bigram filters, or cjkchain in their place)", regexp.MustCompile(`(lang/cjk\.\(\*CJK(Width|Bigram)Filter\)|lowercase\.\(\*LowerCaseFilter\)|cjkchain\.\(\*Filter\))\.Filter$`)},
	{"— term frequencies (bleve's analysis.TokenFrequency, or docbody's in its place)", regexp.MustCompile(`(bleve/v2/analysis\.TokenFrequency|docbody\.frequencies)$`)},
	{"bleve: a batch's segment (Scorch.Batch)", regexp.MustCompile(`scorch\.\(\*Scorch\)\.Batch$`)},
	{"bleve: merges (Scorch.mergerLoop)", regexp.MustCompile(`scorch\.\(\*Scorch\)\.mergerLoop$`)},
	{"— postings of the merged segments read (PostingsList.iterator: deleted documents left out)", regexp.MustCompile(`zapx/v17\.\(\*PostingsList\)\.iterator$`)},
	{"garbage collector's marking", regexp.MustCompile(`^runtime\.gcBgMarkWorker$`)},
	{"memory allocation, everywhere (mallocgc)", regexp.MustCompile(`^runtime\.mallocgc$`)},
}

func main() {
	pages := flag.Int("n", 0, "pages indexed in each repetition (required)")
	modes := flag.String("modes", "dedup,nodedup", "modes to print, comma-separated; the last column is the first less the second")
	tenth := flag.Int("tenth", 0, "only this tenth of each repetition, 1 to 10 (0: the whole run)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: stageprofile -n PAGES [-modes A,B] [-tenth T] DIR\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *pages <= 0 || *tenth < 0 || *tenth > 10 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), strings.Split(*modes, ","), *pages, *tenth); err != nil {
		fmt.Fprintln(os.Stderr, "stageprofile:", err)
		os.Exit(1)
	}
}

// run prints the table of dir's profiles for modes: of every tenth of a
// run of pages, or of tenth alone (1 to 10).
func run(w io.Writer, dir string, modes []string, pages, tenth int) error {
	cols := make([][]float64, len(modes)) // ms a page, by mode then stage
	totals := make([]float64, len(modes))
	profiled := float64(pages) // a repetition's pages in the profiles
	if tenth > 0 {
		profiled /= 10
	}
	for i, m := range modes {
		p, reps, err := load(dir, m, tenth)
		if err != nil {
			return err
		}
		perPage := 1e-6 / (profiled * float64(reps)) // ns of CPU in all repetitions -> ms a page
		cols[i] = make([]float64, len(stages))
		for j, s := range stages {
			cols[i][j] = float64(cpuIn(p, s.fn)) * perPage
		}
		totals[i] = float64(cpuIn(p, nil)) * perPage
	}
	fmt.Fprintf(w, "| stage | %s |", strings.Join(modes, " | "))
	if len(modes) > 1 {
		fmt.Fprintf(w, " %s − %s |", modes[0], modes[1])
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(modes)+min(1, len(modes)-1)))
	row := func(name string, v func(int) float64) {
		fmt.Fprintf(w, "| %s |", name)
		for i := range modes {
			fmt.Fprintf(w, " %.3f |", v(i))
		}
		if len(modes) > 1 {
			fmt.Fprintf(w, " %+.3f |", v(0)-v(1))
		}
		fmt.Fprintln(w)
	}
	row("**all CPU sampled**", func(i int) float64 { return totals[i] })
	for j, s := range stages {
		row(s.name, func(i int) float64 { return cols[i][j] })
	}
	of := ""
	if tenth > 0 {
		of = fmt.Sprintf(", tenth %d alone", tenth)
	}
	fmt.Fprintf(w, "\nms of CPU a page (%d pages a repetition%s), from %s\n", pages, of, dir)
	return nil
}

// load merges the CPU profiles of mode in dir, of every tenth or of tenth
// alone (1 to 10), and returns them with the number of repetitions they
// cover.
func load(dir, mode string, tenth int) (*profile.Profile, int, error) {
	tNN := "t*"
	if tenth > 0 {
		tNN = fmt.Sprintf("t%02d", tenth)
	}
	files, err := filepath.Glob(filepath.Join(dir, "cpu-"+mode+"-*-"+tNN+".pprof"))
	if err != nil {
		return nil, 0, err
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("no CPU profile of mode %q in %s (cpu-%s-REP-%s.pprof)", mode, dir, mode, tNN)
	}
	var ps []*profile.Profile
	reps := map[string]bool{}
	for _, f := range files {
		p, err := parse(f)
		if err != nil {
			return nil, 0, err
		}
		ps = append(ps, p)
		// cpu-MODE-REP-tNN.pprof: the repetition is the part before the tenth.
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".pprof"), "-")
		reps[parts[len(parts)-2]] = true
	}
	p, err := profile.Merge(ps)
	if err != nil {
		return nil, 0, fmt.Errorf("merge %s profiles: %w", mode, err)
	}
	return p, len(reps), nil
}

func parse(name string) (*profile.Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// cpuIn is the CPU (ns) of p's samples with a frame whose function fn
// matches, each sample counted once; fn nil counts every sample.
func cpuIn(p *profile.Profile, fn *regexp.Regexp) int64 {
	idx := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" })
	if idx < 0 {
		return 0
	}
	var total int64
	for _, s := range p.Sample {
		if fn == nil || holds(s, fn) {
			total += s.Value[idx]
		}
	}
	return total
}

func holds(s *profile.Sample, fn *regexp.Regexp) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && fn.MatchString(l.Function.Name) {
				return true
			}
		}
	}
	return false
}
