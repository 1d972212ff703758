package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/server"
)

// shutdownGrace is how long serve waits for requests in flight after
// SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

func newServeCmd() *cobra.Command {
	var dir, addr string
	opts := server.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "serve --index DIR [--addr 127.0.0.1:8080]",
		Short: "Serve the search page and JSON API over the index",
		Long: `serve opens the index in DIR and serves, on --addr, a web page to search it
with duplicates folded and to compare the members of a cluster side by side,
and the JSON API the page uses (/api/search, /api/doc, /api/clusters,
/api/cluster, /api/compare; see package server).

It listens on loopback by default and has no authentication: expose it
beyond this machine only behind a proxy that adds some. SIGINT or SIGTERM
stop it gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ix, err := openExisting(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if host, _, _ := net.SplitHostPort(addr); !isLoopback(host) {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is not a loopback address; the server has no authentication\n", addr)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serve(ctx, cmd, server.New(ix, opts).HTTPServer(addr), ln)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "", "index directory (required)")
	cmd.MarkFlagRequired("index")
	fl.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	fl.DurationVar(&opts.SearchTimeout, "search-timeout", opts.SearchTimeout, "longest time one search may run")
	return cmd
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
