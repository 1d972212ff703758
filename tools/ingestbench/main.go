// Command ingestbench measures searching while indexing: it starts
// "bleve-dedup serve --ingest" on a new index, sends a JSONL corpus to
// /api/ingest in one request, and meanwhile runs searches against the same
// server, a query at a time, and looks for probe pages (a unique word each,
// sent every -probe-every pages) until they are found. It reports the
// ingest's summary and rate, the searches' latency (p50, p99, max) and
// errors, and for the probes the time from the server reading them (its
// GET /api/ingest progress) to being found, and from sending them (which
// adds the time they wait in the connection's buffers).
//
//	go build -o /tmp/bd ./cmd/bleve-dedup
//	go run ./tools/bench-scale -n 100000 -work /tmp/corpora -corpus-only -queries 1000
//	go run ./tools/ingestbench -bin /tmp/bd -pages /tmp/corpora/corpus-.../pages.jsonl -queries /tmp/corpora/corpus-.../queries-1000.json
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the bleve-dedup binary (required)")
	pages := flag.String("pages", "", "JSONL corpus to ingest (required)")
	queries := flag.String("queries", "", "queries, a JSON array of strings or of {\"text\": ...} objects (bench-scale's queries-N.json) (required)")
	searches := flag.Int("searches", 1000, "searches to run while the ingest goes on")
	every := flag.Duration("search-every", 200*time.Millisecond, "pause between two searches")
	probeEvery := flag.Int("probe-every", 5000, "send a probe page after every this many pages")
	work := flag.String("work", "", "directory for the index (default: a temporary one, removed)")
	flag.Parse()
	if *bin == "" || *pages == "" || *queries == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*bin, *pages, *queries, *work, *searches, *every, *probeEvery); err != nil {
		log.Fatal("ingestbench: ", err)
	}
}

func run(bin, pages, queriesPath, work string, searches int, every time.Duration, probeEvery int) error {
	qs, err := readQueries(queriesPath)
	if err != nil {
		return err
	}
	if work == "" {
		d, err := os.MkdirTemp("", "ingestbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	base, stop, err := startServer(bin, filepath.Join(work, "ix"))
	if err != nil {
		return err
	}
	defer stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	probes := make(chan probe, 1024)
	var lat []time.Duration
	var searchErrs []string
	wg.Go(func() { lat, searchErrs = searchLoop(ctx, base, qs, searches, every) })
	var fromRead, fromSent []time.Duration
	var probeMissed int
	wg.Go(func() { fromRead, fromSent, probeMissed = probeLoop(base, probes) })

	start := time.Now()
	sum, sent, err := ingest(base, pages, probeEvery, probes)
	close(probes)
	elapsed := time.Since(start)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	fmt.Printf("ingest: %d pages sent in %v (%.0f pages/s); server summary %s\n", sent, elapsed.Round(time.Millisecond), float64(sent)/elapsed.Seconds(), sum)
	slices.Sort(lat)
	fmt.Printf("searches during the ingest: %d, errors %d, p50 %v, p99 %v, max %v\n", len(lat), len(searchErrs),
		pct(lat, 0.50), pct(lat, 0.99), pct(lat, 1))
	for i, e := range searchErrs {
		if i == 5 {
			break
		}
		fmt.Println("  search error:", e)
	}
	slices.Sort(fromRead)
	slices.Sort(fromSent)
	fmt.Printf("probes: %d found, %d not found within a minute; read by the server to searchable p50 %v, max %v; sent to searchable (with the connection's buffers) p50 %v, max %v\n",
		len(fromRead), probeMissed, pct(fromRead, 0.5), pct(fromRead, 1), pct(fromSent, 0.5), pct(fromSent, 1))
	return nil
}

// startServer starts serve --ingest on a new index and returns its base
// URL, read from the line it prints.
func startServer(bin, index string) (string, func(), error) {
	cmd := exec.Command(bin, "serve", "--ingest", "--index", index, "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "serving "); ok {
			go io.Copy(io.Discard, out)
			return strings.TrimSuffix(u, "/"), stop, nil
		}
	}
	stop()
	return "", nil, errors.New("serve exited before it listened")
}

// probe is a page with a word of its own, its line in the body, and
// when it was sent.
type probe struct {
	word string
	line int
	sent time.Time
}

// ingest sends the corpus in one request, a probe after every probeEvery
// pages, and returns the server's summary.
func ingest(base, pages string, probeEvery int, probes chan<- probe) (string, int, error) {
	f, err := os.Open(pages)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	sent := 0
	go func() {
		br := bufio.NewReaderSize(f, 1<<20)
		for n := 0; ; n++ {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := pw.Write(line); werr != nil {
					return
				}
				sent++
			}
			if err != nil {
				pw.CloseWithError(nil)
				return
			}
			if (n+1)%probeEvery == 0 {
				p := probe{word: fmt.Sprintf("zqprobe%dx", n+1)}
				rec, _ := json.Marshal(map[string]string{"id": "probe-" + p.word, "text": probeText(n + 1)})
				if _, err := pw.Write(append(rec, '\n')); err != nil {
					return
				}
				p.sent = time.Now()
				sent++
				p.line = sent
				probes <- p
			}
		}
	}()
	resp, err := http.Post(base+"/api/ingest", "application/x-ndjson", pr)
	if err != nil {
		return "", sent, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", sent, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", sent, fmt.Errorf("ingest: %s: %s", resp.Status, body)
	}
	return strings.TrimSpace(string(body)), sent, nil
}

// probeText is a paragraph unlike any other page's (probes included:
// words drawn by a generator seeded with n), with the probe's word.
func probeText(n int) string {
	words := strings.Fields("river bridge school market harbour council budget teacher farmer winter storm railway museum library doctor nurse festival election court police garden factory engineer student village mountain forest lake island ferry airport tunnel highway bakery theatre concert painter writer novel poem science rocket planet ocean whale desert camel tiger panda")
	seed := uint64(n)*0x9E3779B97F4A7C15 + 1
	var b strings.Builder
	fmt.Fprintf(&b, "zqprobe%dx", n)
	for i := range 60 {
		seed = seed*6364136223846793005 + 1442695040888963407
		b.WriteString(" " + words[(seed>>33)%uint64(len(words))])
		if i%12 == 11 {
			b.WriteString(".")
		}
	}
	return b.String()
}

// searchLoop runs up to n searches, one every pause, until ctx is done,
// and returns their latencies and errors.
func searchLoop(ctx context.Context, base string, qs []string, n int, pause time.Duration) ([]time.Duration, []string) {
	var lat []time.Duration
	var errs []string
	c := &http.Client{Timeout: 30 * time.Second}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		u := base + "/api/search?" + url.Values{"q": {qs[i%len(qs)]}}.Encode()
		start := time.Now()
		resp, err := c.Get(u)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", qs[i%len(qs)], err))
		} else {
			lat = append(lat, time.Since(start))
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
	return lat, errs
}

// probeLoop follows each probe: it polls the ingest's progress until the
// server has read the probe's line, then searches until the probe is
// found (or a minute passes). It returns the times from being read by
// the server, and from being sent, to being found.
func probeLoop(base string, probes <-chan probe) (fromRead, fromSent []time.Duration, missed int) {
	for p := range probes {
		var read time.Time
		found := false
		for time.Since(p.sent) < time.Minute {
			if read.IsZero() {
				var st struct{ Received int }
				if getJSON(base+"/api/ingest", &st) == nil && st.Received >= p.line {
					read = time.Now()
				}
			}
			var res struct{ Hits []struct{ ID string } }
			if getJSON(base+"/api/search?q="+p.word, &res) == nil && len(res.Hits) > 0 && res.Hits[0].ID == "probe-"+p.word {
				found = true
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !found {
			missed++
			continue
		}
		if read.IsZero() {
			read = time.Now() // found before its read was seen
		}
		fromRead = append(fromRead, time.Since(read))
		fromSent = append(fromSent, time.Since(p.sent))
	}
	return fromRead, fromSent, missed
}

func getJSON(u string, v any) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// readQueries reads a JSON array of strings or of objects with a "text"
// (bench-scale's queries), "q" or "query" field.
func readQueries(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var qs []string
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			qs = append(qs, s)
			continue
		}
		var o map[string]any
		if json.Unmarshal(r, &o) == nil {
			for _, k := range []string{"text", "q", "query"} {
				if v, ok := o[k].(string); ok {
					qs = append(qs, v)
					break
				}
			}
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return qs, nil
}

// pct is the p-th quantile of sorted durations.
func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(p*float64(len(d))+0.5) - 1
	return d[max(0, min(i, len(d)-1))].Round(100 * time.Microsecond)
}
