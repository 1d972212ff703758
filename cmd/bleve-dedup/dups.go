package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

type dupsCmd struct {
	index  indexFlags
	server string
	all    bool
	format format
}

func (o *dupsCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs)
	fs.StringVar(&o.server, "server", "", "read the clusters through the JSON API of a running serve at this URL")
	fs.BoolVar(&o.all, "all", false, "every cluster, those of one document too: each document with its cluster id (not with --server)")
	o.format = newFormat("table", "table", "jsonl")
	o.format.addFlag(fs)
}

func newDupsCmd() *cobra.Command {
	var o dupsCmd
	cmd := &cobra.Command{
		Use:   "dups --index DIR | --store redis://... | --server URL [--format table|jsonl]",
		Short: "List the clusters of near-duplicate documents",
		Long: `dups lists every cluster of two or more documents: its id, its representative
(the copy in search results) and its members, representative and suppressed
copies included (--all: every cluster, so every document). --format jsonl
prints one {"cluster","representative","members"} object a line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd) },
	}
	o.AddFlags(cmd.Flags())
	cmd.MarkFlagsOneRequired("index", "store", "server")
	cmd.MarkFlagsMutuallyExclusive("index", "server")
	cmd.MarkFlagsMutuallyExclusive("store", "server")
	cmd.MarkFlagsMutuallyExclusive("all", "server")
	return cmd
}

// clusterLine is the JSON-lines form of a cluster.
type clusterLine struct {
	Cluster        string   `json:"cluster"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

func (o *dupsCmd) run(cmd *cobra.Command) error {
	walk, done, err := o.clusters(cmd.Context())
	if err != nil {
		return err
	}
	defer done()
	out := cmd.OutOrStdout()
	enc := jsonLines(out)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	table := o.format.value == "table"
	if table {
		fmt.Fprintln(tw, "CLUSTER\tREPRESENTATIVE\tSIZE\tMEMBERS")
	}
	n := 0
	err = walk(func(c clusterLine) error {
		n++
		if !table {
			return enc.Encode(c)
		}
		_, err := fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.Cluster, c.Representative, len(c.Members), strings.Join(c.Members, " "))
		return err
	})
	if err != nil || !table {
		return err
	}
	if o.all {
		fmt.Fprintf(tw, "(%d clusters)\n", n)
	} else {
		fmt.Fprintf(tw, "(%d clusters of duplicates)\n", n)
	}
	return tw.Flush()
}

// clusters returns a walk over the clusters of two or more members (all
// with --all), from
// the index or through the server, and what closes the index.
func (o *dupsCmd) clusters(ctx context.Context) (walk func(func(clusterLine) error) error, done func(), err error) {
	if o.server != "" {
		c, err := newClient(o.server)
		if err != nil {
			return nil, nil, err
		}
		return func(fn func(clusterLine) error) error { return c.clusters(ctx, fn) }, func() {}, nil
	}
	filter, done, err := o.filter()
	if err != nil {
		return nil, nil, err
	}
	return func(fn func(clusterLine) error) error {
		return filter.Clusters(func(c dedupfilter.Cluster) error {
			if len(c.Members) < 2 && !o.all {
				return nil
			}
			return fn(clusterLine{c.ID, c.Representative, c.Members})
		})
	}, done, nil
}

// filter opens the store the clusters are in: the indexes', or the shared
// store alone (a local store of nothing in memory beside it).
func (o *dupsCmd) filter() (*dedupfilter.Filter, func(), error) {
	if len(o.index.dirs) > 0 {
		ix, err := o.index.open()
		if err != nil {
			return nil, nil, err
		}
		return ix.Filter(), func() { ix.Close() }, nil
	}
	b, err := rediscluster.Open(o.index.store, nil)
	if err != nil {
		return nil, nil, err
	}
	f, err := dedupfilter.New(b, indexer.DefaultOptions().Filter)
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
