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

	"github.com/bleve-dedup/bleve-dedup/server"
)

// shutdownGrace is how long serve waits for requests in flight after
// SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

type serveCmd struct {
	index indexFlags
	addr  string
	opts  server.Options
}

func (o *serveCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	o.opts = server.DefaultOptions()
	fs.DurationVar(&o.opts.SearchTimeout, "search-timeout", o.opts.SearchTimeout, "longest time one search may run")
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

It listens on loopback by default and has no authentication: expose it
beyond this machine only behind a proxy that adds some. SIGINT or SIGTERM
stop it gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagRequired("index")
	return cmd
}

func (o *serveCmd) run(cmd *cobra.Command) error {
	ix, err := o.index.open()
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
	ctx, stop := stopOnSignal(cmd.Context())
	defer stop()
	return serve(ctx, cmd, srv.HTTPServer(o.addr), ln)
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
