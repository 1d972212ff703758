package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/remote"
	"github.com/bleve-dedup/bleve-dedup/server"
)

type searchCmd struct {
	index      indexFlags
	server     serverFlag
	format     formatFlag
	syntax     string
	size, from int
	collapse   bool
	field      string
	foldCopies bool
}

func (o *searchCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR` (or a plain bleve index adopted with bleve-dedup adopt); several, with --store, are shards searched together")
	o.index.readsAdopted()
	o.index.readsRemote()
	o.server.AddFlags(fs, "search through the JSON API of the running serve at this `URL` (an index it holds cannot be opened here)")
	o.format.AddFlags(fs, "one hit a line")
	fs.StringVar(&o.syntax, "syntax", boolquery.Boolean.String(), "query syntax: boolean or querystring")
	fs.BoolVar(&o.collapse, "collapse", true, "fold each duplicate cluster into one hit")
	fs.StringVar(&o.field, "collapse-field", "", "fold by this keyword `FIELD` of the index instead: one hit per value (with --index)")
	fs.BoolVar(&o.foldCopies, "fold-copies", false, "with --collapse-field: keep the best match of each duplicate cluster only, then group by the field")
	fs.IntVar(&o.size, "size", collapse.DefaultSize, "hits per page")
	fs.IntVar(&o.from, "from", 0, "hits to skip")
}

func newSearchCmd() *cobra.Command {
	var o searchCmd
	cmd := &cobra.Command{
		Use:   "search --index DIR... [--store redis://...] | --server URL QUERY",
		Short: "Search the index, one hit per duplicate cluster",
		Long: `search runs QUERY against the index in DIR and prints one hit per duplicate
cluster (the best-scoring copy) with the number of copies folded under it.

QUERY uses the boolean syntax by default: AND or *, OR or +, NOT or -,
parentheses, "quoted phrases" and field:term, with NOT binding tighter than
AND and AND tighter than OR; bare terms search the title and the text:

  bleve-dedup search --index idx '(university OR college) AND (education OR Law) NOT Japan'

--syntax querystring takes bleve's query-string syntax instead. --from and
--size page over clusters (over documents with --collapse=false).

--collapse-field FIELD gives one hit per value of a keyword field instead
(in an index of passages, the page each was cut from), with the number of
matching documents of each; --fold-copies first keeps only the best match
of each duplicate cluster, so that no page is listed for a passage that
copies a better one.

A plain bleve index brought under the filter with bleve-dedup adopt is
searched in the fields adopt was given, with the store beside it
(DIR.dedup) or the --store DIR adopt was given.`,
		Example: `  # The bee story once, with its two reprints folded under it
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup search --index /tmp/idx bees

  # Boolean syntax and Chinese terms; every copy, in an index that keeps them
  bleve-dedup index --index /tmp/idx-mark --policy mark testdata/pages
  bleve-dedup search --index /tmp/idx-mark --collapse=false '(图书馆 OR 绿道) NOT 茶'

  # One JSON object a hit, the second page of two
  bleve-dedup search --index /tmp/idx --format jsonl --size 2 --from 2 'library OR tide OR bees'

  # One hit per URL, copies of a better match left out
  bleve-dedup search --index /tmp/idx-mark --collapse-field url --fold-copies bees

  # Through a running serve, which holds the index
  bleve-dedup search --server http://127.0.0.1:8080 bees`,
		Args: needArgs(1, -1, "the query"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, strings.Join(args, " ")) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *searchCmd) run(cmd *cobra.Command, qs string) error {
	if err := need(cmd, "search: name the index to search: --index DIR, or --server URL of a running serve", "index", "server"); err != nil {
		return err
	}
	if err := notBoth(cmd, "index", "server", "the index a server holds is searched through it"); err != nil {
		return err
	}
	if err := notBoth(cmd, "collapse-field", "server", "a server's search is folded by cluster here"); err != nil {
		return err
	}
	if err := notBoth(cmd, "remote", "server", "a server searches its own --remote shards"); err != nil {
		return err
	}
	syn, err := boolquery.ParseSyntax(o.syntax)
	if err != nil {
		return fmt.Errorf("--syntax: %w", err)
	}
	// The bounds of the server's search API, so that a query costs here
	// what it costs there.
	ctx, err := server.DefaultOptions().CheckQuery(cmd.Context(), qs)
	if err != nil {
		return err
	}
	var res *collapse.Result
	if o.server.url != "" {
		c, err := o.server.client()
		if err != nil {
			return err
		}
		res, err = c.Search(ctx, remote.Query{Q: qs, Syntax: syn.String(), From: o.from, Size: o.size, Uncollapsed: !o.collapse})
		if err != nil {
			return err
		}
	} else {
		ix, err := o.index.open()
		if err != nil {
			return err
		}
		defer ix.Close()
		q, err := boolquery.Query(qs, boolquery.Options{Fields: ix.SearchFields(), Syntax: syn})
		if err != nil {
			return err
		}
		res, err = collapse.NewWithFields(ix.Unwrap(), ix.Filter(), o.index.collapseFields()).Search(ctx, collapse.Request{
			Query: q, Size: o.size, From: o.from, Collapse: o.collapse, Field: o.field, FoldCopies: o.foldCopies})
		if err != nil {
			return err
		}
	}
	// A partial answer says so, apart from the hits a program reads.
	for _, name := range slices.Sorted(maps.Keys(res.ShardErrors)) {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: shard %s did not answer, the hits are the other shards': %s\n", name, res.ShardErrors[name])
	}
	if o.format.jsonl {
		enc := jsonLines(cmd.OutOrStdout())
		for _, h := range res.Hits {
			if o.field == "" {
				h.Size = 0 // by cluster a line says Folded, as it always has
			}
			if err := enc.Encode(h); err != nil {
				return err
			}
		}
		return nil
	}
	if o.field != "" {
		return writeGroupsTable(cmd, res)
	}
	return writeHitsTable(cmd, res, o.collapse)
}

// writeGroupsTable prints the hits of a search folded by a field.
func writeGroupsTable(cmd *cobra.Command, res *collapse.Result) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tID\tGROUP\tMATCHES\tTITLE")
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%d\t%s\n", h.Score, h.ID, h.Group, h.Size, h.Title)
	}
	bound := ""
	if !res.ClustersExact {
		bound = "at least "
	}
	fmt.Fprintf(tw, "(%d of %s%d groups, %d documents)\n", len(res.Hits), bound, res.Groups, res.Total)
	return tw.Flush()
}

func writeHitsTable(cmd *cobra.Command, res *collapse.Result, collapsed bool) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tID\tCLUSTER\tFOLDED\tTITLE")
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%d\t%s\n", h.Score, h.ID, h.Cluster, h.Folded, h.Title)
	}
	switch {
	case !collapsed:
		fmt.Fprintf(tw, "(%d of %d documents)\n", len(res.Hits), res.Total)
	case res.ClustersExact:
		fmt.Fprintf(tw, "(%d of %d clusters, %d documents)\n", len(res.Hits), res.Clusters, res.Total)
	default:
		fmt.Fprintf(tw, "(%d of at least %d clusters, %d documents)\n", len(res.Hits), res.Clusters, res.Total)
	}
	return tw.Flush()
}
