package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// shutdownGrace is how long serve waits for requests in flight after
// SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

type serveCmd struct {
	index       indexFlags
	addr        string
	opts        server.Options
	ingest      bool
	ingestOpts  ingestFlags
	filter      filterFlags
	ingestBytes int64
	flushAfter  time.Duration
}

func (o *serveCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	o.opts = server.DefaultOptions()
	fs.DurationVar(&o.opts.SearchTimeout, "search-timeout", o.opts.SearchTimeout, "longest time one search may run")
	fs.BoolVar(&o.ingest, "ingest", false, "also take pages on POST /api/ingest (one --index, created when absent; the flags below apply)")
	o.filter.AddFlags(fs)
	def := server.DefaultIngest(nil)
	o.ingestOpts.AddFlags(fs, def.Run)
	fs.Int64Var(&o.ingestBytes, "ingest-max-body", def.MaxBytes, "with --ingest, the largest request body in bytes")
	fs.DurationVar(&o.flushAfter, "flush-after", def.Run.FlushAfter, "with --ingest, the longest a page waits for its batch to be committed (and searchable)")
}

func newServeCmd() *cobra.Command {
	var o serveCmd
	cmd := &cobra.Command{
		Use:   "serve --index DIR... [--store redis://...] [--addr 127.0.0.1:8080]",
		Short: "Serve the search page and JSON API over the index",
		Long: `serve opens the index in DIR and serves, on --addr, a web page to search it
with duplicates folded and to compare the members of a cluster side by side,
and the JSON API the page uses (/api/search, /api/doc, /api/clusters,
/api/cluster, /api/compare; see package server).

With --ingest it also indexes the pages POSTed to /api/ingest, a JSONL
(Content-Type application/x-ndjson) or WARC (application/warc) body,
optionally gzipped, as "bleve-dedup index" would, while searches go on;
pages are searchable about --flush-after after they arrive, and the answer
is a JSON summary of the run. One ingest runs at a time; another gets 429
with Retry-After. "bleve-dedup index --server URL" sends its inputs there.

It listens on loopback by default and has no authentication: expose it
beyond this machine only behind a proxy that adds some. SIGINT or SIGTERM
stop it gracefully, keeping every page an ingest indexed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagRequired("index")
	return cmd
}

func (o *serveCmd) run(cmd *cobra.Command) error {
	// Before the index opens: a signal while it opens stops the run
	// once open, instead of killing the process.
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	ix, err := o.open()
	if err != nil {
		return err
	}
	defer ix.Close()
	srv, err := server.New(ix, o.opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(o.addr); !isLoopback(host) {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is not a loopback address; the server has no authentication\n", o.addr)
	}
	if o.ingest {
		fmt.Fprintf(cmd.OutOrStdout(), "taking pages on POST http://%s/api/ingest\n", ln.Addr())
	}
	return serve(ctx, cmd, srv.HTTPServer(o.addr), ln)
}

// open opens the index to read, or to read and write with --ingest.
func (o *serveCmd) open() (interface {
	server.Index
	Close() error
}, error) {
	if !o.ingest {
		return o.index.open()
	}
	if len(o.index.dirs) != 1 {
		return nil, errors.New("--ingest: name one --index to index into")
	}
	opts, err := indexOptions(o.index.dirs[0], &o.filter, &o.ingestOpts)
	if err != nil {
		return nil, err
	}
	opts.SharedStore = o.index.store
	ix, err := indexer.Open(o.index.dirs[0], opts)
	if err != nil {
		return nil, err
	}
	in := server.DefaultIngest(ix)
	in.Run = o.ingestOpts.runOptions()
	in.Run.FlushAfter = o.flushAfter
	in.Pages, in.MaxBytes = o.ingestOpts.pageOptions(), o.ingestBytes
	o.opts.Ingest = in
	return ix, nil
}

// serve runs hs on ln until ctx is done, then shuts it down gracefully.
func serve(ctx context.Context, cmd *cobra.Command, hs *http.Server, ln net.Listener) error {
	fmt.Fprintf(cmd.OutOrStdout(), "serving http://%s/\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	fmt.Fprintln(cmd.OutOrStdout(), "stopped")
	return err
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
