// Command shapebench measures the index command on pathological pages
// (package shapes) through the real binary: the cost of indexing one page
// of each shape at 1 to 8 MB (wall and CPU time, peak RSS), and how long
// the process takes to exit after SIGINT or SIGTERM in the middle of an
// 8 MB page, with the page indexed before it kept. A signal sent before
// the first commit (while the index opens) leaves nothing to keep; one
// sent after the run ended finds it exited (0, or 2 for a skipped page).
//
//	go build -o /tmp/bd ./cmd/bleve-dedup
//	go run ./tools/shapebench -bin /tmp/bd
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/shapes"
)

func main() {
	bin := flag.String("bin", "", "the bleve-dedup binary (required)")
	work := flag.String("work", "", "directory for pages and indexes (default: a temporary one, removed)")
	sizes := flag.String("mb", "1,2,4,8", "page sizes in MB")
	stopAt := flag.String("stop-at", "0.5", "when to send the signal, as fractions of the page's full run, comma-separated")
	flag.Parse()
	if *bin == "" {
		log.Fatal("shapebench: -bin: name the bleve-dedup binary")
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "shapebench-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	var mbs []int
	for f := range strings.SplitSeq(*sizes, ",") {
		var mb int
		if _, err := fmt.Sscan(f, &mb); err != nil || mb < 1 {
			log.Fatalf("shapebench: -mb: bad size %q", f)
		}
		mbs = append(mbs, mb)
	}
	var fracs []float64
	for f := range strings.SplitSeq(*stopAt, ",") {
		var x float64
		if _, err := fmt.Sscan(f, &x); err != nil || x <= 0 {
			log.Fatalf("shapebench: -stop-at: bad fraction %q", f)
		}
		fracs = append(fracs, x)
	}
	b := bench{bin: *bin, dir: dir}
	small := filepath.Join(dir, "small.html")
	if err := os.WriteFile(small, []byte(smallPage), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("shape\tMB\twall_s\tcpu_s\tpeak_rss_MiB\tresult")
	full := map[string]time.Duration{}
	for _, sh := range shapes.All {
		for _, mb := range mbs {
			path := filepath.Join(dir, fmt.Sprintf("%s-%dMB.html", sh.Name, mb))
			if err := os.WriteFile(path, []byte(sh.Page(mb<<20)), 0o644); err != nil {
				log.Fatal(err)
			}
			r := b.index(path, 0, nil)
			fmt.Printf("%s\t%d\t%.2f\t%.2f\t%d\t%s\n", sh.Name, mb, r.wall.Seconds(), r.cpu.Seconds(), r.maxRSS>>20, r.summary)
			full[sh.Name] = r.wall
		}
	}
	last := mbs[len(mbs)-1]
	fmt.Printf("\nstop during a %d MB page\nshape\tsignal\tsent_at_s\texit_after_s\tstatus\tsmall_page_kept\n", last)
	for _, sh := range shapes.All {
		path := filepath.Join(dir, fmt.Sprintf("%s-%dMB.html", sh.Name, last))
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for _, f := range fracs {
				at := time.Duration(float64(full[sh.Name]) * f)
				r := b.index(path, at, sig)
				fmt.Printf("%s\t%v\t%.2f\t%.3f\t%d\t%v\n", sh.Name, sig, at.Seconds(), r.afterSignal.Seconds(), r.status, b.kept(r.index))
			}
		}
	}
}

// smallPage is indexed before the pathological one: a stop must keep it.
const smallPage = `<html><head><title>Harbour ferry timetable changes</title></head><body><article><h1>Harbour ferry timetable changes</h1>
<p>The harbour ferry will run every twenty minutes from Monday, the council said, after a winter of complaints about crowded boats.</p>
<p>Extra crossings are planned for the morning and evening peaks, and the last boat will leave the island at midnight.</p></article></body></html>`

type bench struct {
	bin, dir string
	runs     int
}

type result struct {
	index       string
	wall, cpu   time.Duration
	maxRSS      int64
	status      int
	summary     string
	afterSignal time.Duration
}

// index runs bin index on the small page and path into a new index;
// with a signal, sends it after at and measures the time to exit.
func (b *bench) index(path string, at time.Duration, sig os.Signal) result {
	b.runs++
	r := result{index: filepath.Join(b.dir, fmt.Sprint("ix", b.runs))}
	cmd := exec.Command(b.bin, "index", "--max-bytes", "0", "--index", r.index, filepath.Join(b.dir, "small.html"), path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	var sent time.Time
	if sig != nil {
		time.Sleep(at)
		sent = time.Now()
		cmd.Process.Signal(sig)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		r.summary = sc.Text()
	}
	cmd.Wait()
	end := time.Now()
	r.wall = end.Sub(start)
	if sig != nil {
		r.afterSignal = end.Sub(sent)
	}
	ps := cmd.ProcessState
	r.cpu = ps.UserTime() + ps.SystemTime()
	r.maxRSS = ps.SysUsage().(*syscall.Rusage).Maxrss << 10
	r.status = ps.ExitCode()
	if i := strings.Index(r.summary, ", peak RSS"); i > 0 {
		r.summary = r.summary[:i]
	}
	return r
}

// kept reports whether the small page is searchable in the index.
func (b *bench) kept(index string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.bin, "search", "--index", index, "--format", "jsonl", "ferry").Output()
	return err == nil && strings.Contains(string(out), "small")
}
