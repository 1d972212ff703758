package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/remote"
	"github.com/bleve-dedup/bleve-dedup/store/rediscluster"
)

type dupsCmd struct {
	index  indexFlags
	server serverFlag
	all    bool
	format formatFlag
	shards *indexer.Index // the indexes read, when --index
}

func (o *dupsCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR` (or a plain bleve index adopted with bleve-dedup adopt); several, with --store, are shards read together")
	o.index.readsAdopted()
	o.server.AddFlags(fs, "read the clusters through the JSON API of the running serve at this `URL`")
	fs.BoolVar(&o.all, "all", false, "every cluster, those of one document too: each document with its cluster id (not with --server)")
	o.format.AddFlags(fs, `{"cluster","representative","members"} a line`)
}

func newDupsCmd() *cobra.Command {
	var o dupsCmd
	cmd := &cobra.Command{
		Use:   "dups --index DIR | --store redis://... | --server URL [--format table|jsonl]",
		Short: "List the clusters of near-duplicate documents",
		Long: `dups lists every cluster of two or more documents: its id, its representative
(the copy in search results) and its members, representative and suppressed
copies included (--all: every cluster, so every document). --format jsonl
prints one {"cluster","representative","members"} object a line.
--store alone reads the clusters of a shared store without its shards.
A plain bleve index brought under the filter with bleve-dedup adopt is
read with the store beside it (DIR.dedup), or the --store DIR adopt was
given.`,
		Example: `  # The clusters of the shipped pages: the bee story and its two reprints, ...
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup dups --index /tmp/idx

  # Every document with its cluster id, one JSON object a cluster
  bleve-dedup dups --index /tmp/idx --all --format jsonl

  # The clusters of a plain bleve index adopted with bleve-dedup adopt
  bleve-dedup adopt --index /data/pages.bleve --html-field html --url-field url
  bleve-dedup dups --index /data/pages.bleve

  # The clusters of a store shared by shards, or of a running serve
  bleve-dedup dups --store redis://127.0.0.1:6379/crawl
  bleve-dedup dups --server http://127.0.0.1:8080`,
		Args: needArgs(0, 0, "no arguments (the index is --index)"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// check refuses flags that do not go together.
func (o *dupsCmd) check(cmd *cobra.Command) error {
	if err := need(cmd, "dups: name the clusters to list: --index DIR, --store URL of a shared store, or --server URL of a running serve", "index", "store", "server"); err != nil {
		return err
	}
	for _, f := range []string{"index", "store", "all"} {
		if err := notBoth(cmd, f, "server", "a server reads its own index"); err != nil {
			return err
		}
	}
	return nil
}

// clusterLine is the JSON-lines form of a cluster.
type clusterLine struct {
	Cluster        string   `json:"cluster"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

func (o *dupsCmd) run(cmd *cobra.Command) error {
	if err := o.check(cmd); err != nil {
		return err
	}
	ctx := cmd.Context()
	walk, done, err := o.clusters(ctx)
	if err != nil {
		return err
	}
	defer done()
	out := cmd.OutOrStdout()
	enc := jsonLines(out)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	table := !o.format.jsonl
	if table {
		fmt.Fprintln(tw, "CLUSTER\tREPRESENTATIVE\tSIZE\tMEMBERS")
	}
	n := 0
	err = walk(func(c clusterLine) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		if !table {
			return enc.Encode(c)
		}
		_, err := fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.Cluster, c.Representative, len(c.Members), strings.Join(c.Members, " "))
		return err
	})
	if err == nil && o.shards != nil {
		err = o.reportUnseen(ctx, cmd.ErrOrStderr())
	}
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
	if o.server.url != "" {
		c, err := o.server.client()
		if err != nil {
			return nil, nil, err
		}
		return func(fn func(clusterLine) error) error {
			return c.Clusters(ctx, 2, func(ci remote.ClusterInfo) error { return fn(clusterLine{ci.ID, ci.Representative, ci.Members}) })
		}, func() {}, nil
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
// store alone (no local store).
func (o *dupsCmd) filter() (*dedupfilter.Filter, func(), error) {
	if len(o.index.dirs) > 0 {
		ix, err := o.index.open()
		if err != nil {
			return nil, nil, err
		}
		o.shards = ix
		return ix.Filter(), func() { ix.Close() }, nil
	}
	if !isShared(o.index.store) {
		// A directory is the store of an adopted index, which holds
		// the documents' text only with the index.
		return nil, nil, fmt.Errorf("--store %s: alone, --store reads a shared redis:// store; for the store of a plain bleve index adopted with bleve-dedup adopt, name the index too: --index DIR --store %s", o.index.store, o.index.store)
	}
	b, err := rediscluster.Open(o.index.store, nil)
	if err != nil {
		return nil, nil, err
	}
	f, err := dedupfilter.New(b, dedupfilter.DefaultOptions())
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// reportUnseen names on w the documents of the bleve indexes the filter
// has not decided: written into them around it, they are in no cluster.
func (o *dupsCmd) reportUnseen(ctx context.Context, w io.Writer) error {
	const named = 5
	var n int
	var first []string
	err := o.shards.Unseen(ctx, func(id string) error {
		if n++; n <= named {
			first = append(first, id)
		}
		return nil
	})
	if err != nil || n == 0 {
		return err
	}
	more := ""
	if n > named {
		more = ", ..."
	}
	fix := "index their pages again with bleve-dedup index"
	if r := o.index.adopted; r.Name != "" {
		fix = fmt.Sprintf("bring them under the filter with bleve-dedup adopt --index %s %s again", r.Name, r.flags())
	}
	fmt.Fprintf(w, "bleve-dedup: documents written into the bleve index around the filter, in no cluster: %d (%s%s); %s\n",
		n, strings.Join(first, ", "), more, fix)
	return nil
}
