package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/server"
)

type serveCmd struct {
	index       indexFlags
	addr        string
	opts        server.Options
	ingest      bool
	ingestOpts  ingestFlags
	filter      filterFlags
	ingestBytes byteSize
	ingestTime  time.Duration
	flushAfter  time.Duration
	tokenFile   string
	logFormat   string
}

func (o *serveCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR` (or a plain bleve index adopted with bleve-dedup adopt); several, with --store, are shards searched together (with --ingest, one, created when absent)")
	o.index.readsAdopted()
	o.index.readsRemote()
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	o.opts = server.DefaultOptions()
	fs.DurationVar(&o.opts.SearchTimeout, "search-timeout", o.opts.SearchTimeout, "longest time one search may run")
	fs.StringSliceVar(&o.opts.AllowedHosts, "allowed-hosts", nil, "names the server is reached by besides --addr and localhost, as the Host header says them (a name, or name:port): a proxy's public name, or this machine's on a network")
	fs.StringSliceVar(&o.opts.TrustedOrigins, "trusted-origins", nil, "origins (https://host[:port]) besides the server's own whose pages may send pages to ingest")
	fs.DurationVar(&o.opts.ShutdownTimeout, "shutdown-timeout", o.opts.ShutdownTimeout, "after SIGINT or SIGTERM, longest wait for requests to end before exiting with status 1")
	fs.BoolVar(&o.ingest, "ingest", false, "also take pages on POST /api/ingest (one --index, created when absent; the flags below apply)")
	fs.StringVar(&o.tokenFile, "token-file", "", "with --ingest, a file holding the token a POST must carry (Authorization: Bearer TOKEN); else $BLEVE_DEDUP_TOKEN; needed unless --addr is loopback")
	o.filter.AddFlags(fs)
	def := server.DefaultIngest(nil)
	o.ingestOpts.AddFlags(fs, def.Run, serverBatches)
	o.ingestBytes = byteSize(def.MaxBytes)
	fs.Var(&o.ingestBytes, "ingest-max-body", "with --ingest, the largest request body (8MiB, 1GiB, ...), as sent and after gunzipping")
	fs.DurationVar(&o.ingestTime, "ingest-max-duration", def.MaxDuration, "with --ingest, the longest a request may take: past it the pages committed are kept and the client is answered 408 (one ingest runs at a time)")
	fs.DurationVar(&o.flushAfter, "flush-after", def.Run.FlushAfter, "with --ingest, the longest a page waits for its batch to be committed (and searchable)")
	fs.StringVar(&o.logFormat, "log-format", "auto", "request log lines on stderr: json, text, none, or auto (text on a terminal, else json)")
}

// logger returns the request logger --log-format asks for, writing to w.
func (o *serveCmd) logger(w io.Writer) (*slog.Logger, error) {
	format := o.logFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "none":
		return nil, nil
	}
	return nil, fmt.Errorf("--log-format: want json, text, none or auto, got %q", o.logFormat)
}

func newServeCmd() *cobra.Command {
	var o serveCmd
	cmd := &cobra.Command{
		Use:   "serve --index DIR... [--store redis://...] [--addr 127.0.0.1:8080]",
		Short: "Serve the search page and JSON API over the index",
		Long: `serve opens the index in DIR and serves, on --addr, a web page to search it
with duplicates folded and to compare the members of a cluster side by side,
and the JSON API the page uses (/api/search, /api/doc, /api/clusters,
/api/cluster, /api/compare, /api/overview; described in OpenAPI at
/api/openapi.json, see docs/server.md). /healthz and /readyz answer
probes, /metrics Prometheus; a log line a request goes to stderr
(--log-format).

With --ingest it also indexes the pages POSTed to /api/ingest, a JSONL
(Content-Type application/x-ndjson) or WARC (application/warc) body,
optionally gzipped, as "bleve-dedup index" would, while searches go on;
pages are searchable about --flush-after after they arrive, and the answer
is a JSON summary of the run. One ingest runs at a time; another gets 429
with Retry-After. A request lasts at most --ingest-max-duration, and its
body may send nothing for a minute at most: past either it is answered 408,
its pages committed kept. "bleve-dedup index --server URL" sends its inputs
there.

It listens on loopback by default. Searches need no credential; a POST
needs the token of --token-file or $BLEVE_DEDUP_TOKEN when there is one,
and without one is taken only from this machine, not through a proxy;
serve refuses to start --ingest on another address, or with
--allowed-hosts, without a token. Requests must name the server in their
Host header (--addr, localhost, or --allowed-hosts), and a browser may
send pages only from the server's own origin (or --trusted-origins). See
docs/security.md.

A plain bleve index brought under the filter with bleve-dedup adopt is
served for searching (not --ingest), with the store beside it (DIR.dedup)
or the --store DIR adopt was given.

SIGINT or SIGTERM stop it gracefully: a running ingest is cut after the
batch being decided and its client told what was kept, searches in flight
are cancelled, and serve exits 0 once no request is left (a server
stopped on purpose has done its work), or 1 after --shutdown-timeout.`,
		Example: `  # Search the shipped pages in a browser at http://127.0.0.1:8080/
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup serve --index /tmp/idx

  # Also take pages while serving, and send some from another shell
  bleve-dedup serve --index /tmp/idx --ingest
  bleve-dedup index --server http://127.0.0.1:8080 testdata/pages

  # On the network, behind a TLS proxy named search.example.com
  BLEVE_DEDUP_TOKEN=$(cat /etc/bleve-dedup/token) bleve-dedup serve --index /tmp/idx --ingest --addr 10.0.0.5:8080 --allowed-hosts search.example.com`,
		Args: needArgs(0, 0, "no arguments (the index is --index)"),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *serveCmd) run(cmd *cobra.Command) error {
	if err := need(cmd, "serve: name the index to serve: --index DIR (see bleve-dedup serve --help)", "index"); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if o.opts.Logger, err = o.logger(cmd.ErrOrStderr()); err != nil {
		return err
	}
	token, err := loadToken(o.tokenFile)
	switch {
	case err != nil:
		return err
	case token != "" && !o.ingest:
		return errors.New("a token (--token-file, $BLEVE_DEDUP_TOKEN) guards --ingest only: add --ingest or drop the token")
	case token == "" && o.ingest && !isLoopback(host):
		return fmt.Errorf("--ingest on %s, which is not a loopback address, needs a token: --token-file FILE or $BLEVE_DEDUP_TOKEN (docs/security.md)", o.addr)
	case token == "" && o.ingest && len(o.opts.AllowedHosts) > 0:
		return errors.New("--ingest with --allowed-hosts (reached by other names, through a proxy) needs a token: --token-file FILE or $BLEVE_DEDUP_TOKEN (docs/security.md)")
	}
	// Before the index opens: a signal while it opens stops the run
	// once open, instead of killing the process.
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	ix, err := o.open(token)
	if err != nil {
		return err
	}
	defer ix.Close()
	if o.index.adopted.Name == "" {
		// The server's disk metrics read Open's layout (DIR/bleve,
		// DIR/store), which an adopted index does not have.
		o.opts.Dirs = o.index.dirs
	}
	srv, err := server.New(ix, o.opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if !isLoopback(host) {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is not a loopback address: whoever reaches it can search the index\n", o.addr)
	}
	if o.ingest {
		fmt.Fprintf(cmd.OutOrStdout(), "taking pages on POST http://%s/api/ingest\n", ln.Addr())
	}
	fmt.Fprintf(cmd.OutOrStdout(), "serving http://%s/\n", ln.Addr())
	err = srv.Serve(ctx, ln)
	fmt.Fprintln(cmd.OutOrStdout(), "stopped")
	if err != nil {
		return err
	}
	return ix.Close()
}

// loadToken returns the token in file, or when file is "" in
// $BLEVE_DEDUP_TOKEN ("" when neither has one), without surrounding
// white space.
func loadToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("BLEVE_DEDUP_TOKEN")), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("token: %s is empty", file)
	}
	return t, nil
}

// open opens the index to read, or to read and write with --ingest.
func (o *serveCmd) open(token string) (interface {
	server.Index
	Close() error
}, error) {
	if !o.ingest {
		return o.index.open()
	}
	if len(o.index.remotes) > 0 {
		return nil, errors.New("--ingest takes pages into one local index: serve the --remote shards from a server without --ingest")
	}
	dir, err := o.index.dir()
	if err != nil {
		return nil, fmt.Errorf("--ingest: %w", err)
	}
	if isPlainBleve(dir) {
		return nil, fmt.Errorf("--ingest: %s is a plain bleve index: serve --ingest takes pages only into an index of bleve-dedup's own; serve it without --ingest to search it (once brought under the filter with bleve-dedup adopt), and write to it through indexer.Wrap", dir)
	}
	opts, err := indexOptions(dir, &o.index, &o.filter, &o.ingestOpts)
	if err != nil {
		return nil, err
	}
	ix, _, err := openIndex(dir, opts)
	if err != nil {
		return nil, err
	}
	in := server.DefaultIngest(ix)
	in.Run = o.ingestOpts.runOptions()
	in.Run.FlushAfter = o.flushAfter
	in.Pages, in.MaxBytes, in.MaxDuration, in.Token = o.ingestOpts.options(), int64(o.ingestBytes), o.ingestTime, token
	o.opts.Ingest = in
	return ix, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
