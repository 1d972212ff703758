// Command shardbench measures collapsed search over shards served on
// other machines (package remote/shard in a bleve IndexAlias) against
// the same shards opened in the process. It deals a labelled text corpus
// (tools/bench-scale -corpus-only) over -shards bleve indexes, each
// document carrying its labelled cluster, as the mark policy leaves
// them, and its site; serves each shard's endpoints (server.ShardHandler)
// on loopback, directly and through a proxy that delays every byte by
// -latency (plus up to -jitter) each way; and times, interleaved query
// by query, the same collapsed search (by cluster, groups counted
// exactly, a facet of sites counting clusters) three ways: local shards,
// remote shards on loopback, remote shards at that latency. Every
// remote answer must equal the local one (hits, scores, totals, cluster
// and facet counts): a difference stops the run. It prints the latency
// percentiles of each, then what a search answers, and in how long, with
// one shard down, stopped in the middle of the request, or hung (each
// twice: the shard is then taken for down for a timeout).
//
//	go run ./tools/shardbench -corpus W/corpus-v1-n100000-s1-d0.3
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/eval"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/remote/shard"
	"github.com/bleve-dedup/bleve-dedup/server"
)

type config struct {
	corpus, work    string
	shards, queries int
	rounds          int
	latency, jitter time.Duration
	timeout         time.Duration
	load            time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.corpus, "corpus", "", "directory of pages.jsonl and labels.jsonl (tools/bench-scale -corpus-only)")
	flag.StringVar(&c.work, "work", "", "directory of the shards' indexes, kept between runs (default: CORPUS/shards-N)")
	flag.IntVar(&c.shards, "shards", 4, "number of shards")
	flag.IntVar(&c.queries, "queries", 40, "number of queries")
	flag.IntVar(&c.rounds, "rounds", 3, "times each query is searched each way")
	flag.DurationVar(&c.latency, "latency", time.Millisecond, "delay each way through the proxy")
	flag.DurationVar(&c.jitter, "jitter", 200*time.Microsecond, "up to this much more delay, at random, each way")
	flag.DurationVar(&c.timeout, "timeout", time.Second, "a remote shard's timeout (the hung shard's search takes it)")
	flag.DurationVar(&c.load, "load", 0, "after the rest, load one shard's server this long at each of 1, 2, 4, 8 and 16 clients searching at once (collapsed by cluster, the default bound): queries a second and p99")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "shardbench:", err)
		os.Exit(1)
	}
}

// noFolds folds no member: folded members are read from the shared store
// in the searching process, alike whatever the shards are.
type noFolds struct{}

func (noFolds) Fold(hits, clusters []string, max int) ([]dedupfilter.Folded, error) {
	return make([]dedupfilter.Folded, len(hits)), nil
}

type doc struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func run(c config) error {
	if c.corpus == "" {
		return errors.New("name the corpus: -corpus DIR")
	}
	if c.work == "" {
		c.work = filepath.Join(c.corpus, fmt.Sprintf("shards-%d", c.shards))
	}
	shards, titles, err := openShards(c)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range shards {
			s.Close()
		}
	}()
	var direct, delayed []bleve.Index
	for _, s := range shards {
		h := server.ShardHandler(s, collapse.New(s, noFolds{}), server.DefaultOptions())
		u, stop, err := listen(h)
		if err != nil {
			return err
		}
		defer stop()
		p, err := newProxy(u, c.latency, c.jitter)
		if err != nil {
			return err
		}
		defer p.Close()
		for _, x := range []struct {
			to  *[]bleve.Index
			url string
		}{{&direct, u}, {&delayed, "http://" + p.Addr().String()}} {
			r, err := shard.New(x.url, shard.Options{Timeout: 30 * time.Second})
			if err != nil {
				return err
			}
			*x.to = append(*x.to, r)
		}
	}
	ways := []struct {
		name string
		s    *collapse.Searcher
	}{
		{"local", collapse.New(bleve.NewIndexAlias(shards...), noFolds{})},
		{"remote-loopback", collapse.New(bleve.NewIndexAlias(direct...), noFolds{})},
		{fmt.Sprintf("remote-%s", c.latency), collapse.New(bleve.NewIndexAlias(delayed...), noFolds{})},
	}
	qs, names := queries(titles, c.queries)
	request := func(q query.Query) collapse.Request {
		return collapse.Request{Query: q, Size: 10, Collapse: true, ClusterBound: -1, Facets: []collapse.Facet{{Name: "site", Field: "site"}}}
	}
	ctx := context.Background()
	for i, q := range qs { // warm up, and check every answer against the local one
		want, err := ways[0].s.Search(ctx, request(q))
		if err != nil {
			return err
		}
		want.Took = 0
		for _, w := range ways[1:] {
			got, err := w.s.Search(ctx, request(q))
			if err != nil {
				return fmt.Errorf("%s: %q: %w", w.name, names[i], err)
			}
			got.Took = 0
			if !reflect.DeepEqual(got, want) {
				return fmt.Errorf("%s: %q: the answer differs from the local shards'", w.name, names[i])
			}
		}
		// Paging: the second page too.
		r := request(q)
		r.From = 10
		want, _ = ways[0].s.Search(ctx, r)
		got, err := ways[1].s.Search(ctx, r)
		if err != nil {
			return err
		}
		want.Took, got.Took = 0, 0
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("remote: %q, page 2: the answer differs from the local shards'", names[i])
		}
	}
	fmt.Printf("%d shards, %d documents, %d queries, %d rounds, answers equal to the local shards' (pages 1 and 2)\n", c.shards, len(titles), len(qs), c.rounds)
	lat := make([][]time.Duration, len(ways))
	for range c.rounds {
		for _, q := range qs {
			for i, w := range ways {
				start := time.Now()
				if _, err := w.s.Search(ctx, request(q)); err != nil {
					return err
				}
				lat[i] = append(lat[i], time.Since(start))
			}
		}
	}
	fmt.Printf("%-18s %9s %9s %9s %9s\n", "way", "p50 ms", "p99 ms", "p50/local", "p99/local")
	l50, l99 := percentile(lat[0], 50), percentile(lat[0], 99)
	for i, w := range ways {
		p50, p99 := percentile(lat[i], 50), percentile(lat[i], 99)
		fmt.Printf("%-18s %9.2f %9.2f %9.2f %9.2f\n", w.name, ms(p50), ms(p99), float64(p50)/float64(l50), float64(p99)/float64(l99))
	}
	if len(shards) > 1 { // one shard left out, the others answer
		if err := faults(c, shards, direct, request(bleve.NewMatchAllQuery())); err != nil {
			return err
		}
	}
	if c.load > 0 {
		return load(c, direct[0], qs)
	}
	return nil
}

// load searches one shard through its server with n clients at once,
// each searching the next query as soon as its last is answered, and
// prints the queries answered a second and their latency percentiles.
func load(c config, remote bleve.Index, qs []query.Query) error {
	s := collapse.New(remote, noFolds{})
	fmt.Printf("one shard's server, %d documents, each client searching without pause for %s:\n", docCount(remote), c.load)
	fmt.Printf("%-8s %10s %9s %9s\n", "clients", "queries/s", "p50 ms", "p99 ms")
	for _, n := range []int{1, 2, 4, 8, 16} {
		lat := make([][]time.Duration, n)
		errs := make([]error, n)
		end := time.Now().Add(c.load)
		done := make(chan int)
		for i := range n {
			go func() {
				defer func() { done <- i }()
				for j := i; time.Now().Before(end); j++ {
					start := time.Now()
					if _, err := s.Search(context.Background(), collapse.Request{Query: qs[j%len(qs)], Size: 10, Collapse: true}); err != nil {
						errs[i] = err
						return
					}
					lat[i] = append(lat[i], time.Since(start))
				}
			}()
		}
		for range n {
			<-done
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		all := slices.Concat(lat...)
		fmt.Printf("%-8d %10.1f %9.2f %9.2f\n", n, float64(len(all))/c.load.Seconds(), ms(percentile(all, 50)), ms(percentile(all, 99)))
	}
	return nil
}

func docCount(idx bleve.Index) uint64 {
	n, _ := idx.DocCount()
	return n
}

// faults searches with the last shard down, then hung.
func faults(c config, shards, direct []bleve.Index, req collapse.Request) error {
	ctx := context.Background()
	want, err := collapse.New(bleve.NewIndexAlias(shards[:len(shards)-1]...), noFolds{}).Search(ctx, req)
	if err != nil {
		return err
	}
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	downURL := "http://" + down.Addr().String()
	down.Close()
	hung, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		return err
	}
	defer hung.Close()
	killed, err := net.Listen("tcp", "127.0.0.1:0") // stops in the middle of a request
	if err != nil {
		return err
	}
	defer killed.Close()
	go func() {
		for {
			conn, err := killed.Accept()
			if err != nil {
				return
			}
			conn.Read(make([]byte, 64))
			conn.Close()
		}
	}()
	for _, f := range []struct{ name, url string }{
		{"down", downURL}, {"stopped mid-query", "http://" + killed.Addr().String()}, {"hung", "http://" + hung.Addr().String()},
	} {
		last, err := shard.New(f.url, shard.Options{Timeout: c.timeout})
		if err != nil {
			return err
		}
		idx := append(slices.Clone(direct[:len(direct)-1]), last)
		s := collapse.New(bleve.NewIndexAlias(idx...), noFolds{})
		for _, when := range []string{"first search", "next search"} {
			start := time.Now()
			res, err := s.Search(ctx, req)
			took := time.Since(start)
			if err != nil {
				return fmt.Errorf("shard %s: %w", f.name, err)
			}
			fmt.Printf("one shard %s, %s: answered in %.1f ms, %d documents and %d clusters (the other shards alone: %d and %d), shard_errors %v\n",
				f.name, when, ms(took), res.Total, res.Clusters, want.Total, want.Clusters, res.ShardErrors)
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// openShards opens the shards under c.work, building them from the
// corpus the first time; it returns them and the corpus' titles.
func openShards(c config) ([]bleve.Index, []string, error) {
	labels, err := readLabels(filepath.Join(c.corpus, "labels.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(filepath.Join(c.corpus, "pages.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	_, statErr := os.Stat(filepath.Join(c.work, "complete"))
	build := statErr != nil
	if build {
		if err := os.RemoveAll(c.work); err != nil {
			return nil, nil, err
		}
	}
	shards := make([]bleve.Index, c.shards)
	for i := range shards {
		dir := filepath.Join(c.work, fmt.Sprint(i))
		if build {
			shards[i], err = bleve.New(dir, indexer.NewMapping())
		} else {
			shards[i], err = bleve.Open(dir)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	batches := make([]*bleve.Batch, c.shards)
	for i, s := range shards {
		batches[i] = s.NewBatch()
	}
	var titles []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, nil, fmt.Errorf("pages.jsonl: %w", err)
		}
		titles = append(titles, d.Title)
		if !build {
			continue
		}
		h := fnv.New32a()
		io.WriteString(h, d.ID)
		i := int(h.Sum32() % uint32(c.shards))
		site := ""
		if u, err := url.Parse(d.URL); err == nil {
			site = u.Hostname()
		}
		err := batches[i].Index(d.ID, map[string]any{indexer.FieldTitle: d.Title, indexer.FieldText: d.Text, indexer.FieldURL: d.URL,
			indexer.FieldCluster: cmp.Or(labels[d.ID], d.ID), "site": site})
		if err != nil {
			return nil, nil, err
		}
		if batches[i].Size() >= 1000 {
			if err := shards[i].Batch(batches[i]); err != nil {
				return nil, nil, err
			}
			batches[i].Reset()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if build {
		for i, s := range shards {
			if err := s.Batch(batches[i]); err != nil {
				return nil, nil, err
			}
		}
		if err := os.WriteFile(filepath.Join(c.work, "complete"), nil, 0o644); err != nil {
			return nil, nil, err
		}
	}
	return shards, titles, nil
}

func readLabels(path string) (eval.Clustering, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return eval.ReadLabels(f, path)
}

// queries are n boolean queries of one to three words of titles drawn at
// random (the same each run): single words, AND, OR.
func queries(titles []string, n int) ([]query.Query, []string) {
	r := rand.New(rand.NewPCG(7, 11))
	var qs []query.Query
	var names []string
	for len(qs) < n {
		words := strings.Fields(strings.ToLower(titles[r.IntN(len(titles))]))
		words = slices.DeleteFunc(words, func(w string) bool { return len(w) < 4 || strings.ContainsAny(w, `"():*?\-+`) })
		if len(words) == 0 {
			continue
		}
		s := words[r.IntN(len(words))]
		switch len(qs) % 3 {
		case 1:
			s += " AND " + words[r.IntN(len(words))]
		case 2:
			s += " OR " + words[r.IntN(len(words))]
		}
		q, err := boolquery.Query(s, boolquery.Options{Fields: []string{indexer.FieldTitle, indexer.FieldText}})
		if err != nil {
			continue
		}
		qs, names = append(qs, q), append(names, s)
	}
	return qs, names
}

// listen serves h on loopback and returns its URL.
func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// proxy forwards TCP connections to a server, every byte delayed by a
// latency plus up to a jitter, each way, order kept: a network a
// millisecond away, on loopback (this kernel has no netem).
type proxy struct {
	net.Listener
	target          string
	latency, jitter time.Duration
}

func newProxy(target string, latency, jitter time.Duration) (*proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{Listener: ln, target: u.Host, latency: latency, jitter: jitter}
	go p.serve()
	return p, nil
}

func (p *proxy) serve() {
	for {
		in, err := p.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// pipe copies src to dst, each chunk written latency (plus jitter) after
// it was read, never before the chunk before it.
func (p *proxy) pipe(src, dst net.Conn) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				d := p.latency
				if p.jitter > 0 {
					d += rand.N(p.jitter)
				}
				q <- chunk{b[:n], time.Now().Add(d)}
			}
			if err != nil {
				return
			}
		}
	}()
	var last time.Time
	for c := range q {
		last = maxTime(last, c.at)
		time.Sleep(time.Until(last))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
