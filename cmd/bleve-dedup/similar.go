package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
)

type similarCmd struct {
	index  indexFlags
	text   string
	k      int
	format formatFlag
}

func (o *similarCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR` (or a plain bleve index adopted with bleve-dedup adopt); several, with --store, are shards read together")
	o.index.readsAdopted()
	fs.StringVar(&o.text, "text", "", "find pages similar to this page `FILE` (.html, .htm, .txt, optionally .gz, or the first page of a JSONL or WARC file) instead of a document of the index; - reads plain text from stdin, a paragraph a line")
	fs.IntVarP(&o.k, "k", "k", dedupfilter.DefaultSimilarK, "how many similar documents to list")
	o.format.AddFlags(fs, `{"rank","id","url","title","cluster","indexed","grade","score","same_cluster","lists","verdict"} a line`)
}

func newSimilarCmd() *cobra.Command {
	var o similarCmd
	cmd := &cobra.Command{
		Use:   "similar --index DIR [--k N] [--format table|jsonl] (ID | --text FILE)",
		Short: "List the documents most similar to one, with the filter's evidence",
		Long: `similar lists the documents of the index most similar to document ID (or to
the page in --text FILE), by the filter's own evidence: the posting lists
they share with it (MinHash bands, block fingerprints, feature-string
pieces) and the verdict of the measures compare shows. It reads those
posting lists and compares at most 100 documents, not the whole index:
its work is bounded (2.4 ms at the median on a million pages).

Each is graded:
  copy       the filter takes them for copies: the pair passes its
             near-duplicate test, or the filter put them in one cluster
  rewritten  the same content below the copy thresholds (a story
             rewritten, a page quoting much of the other): each holds 0.6
             of the other's distinct terms, or MinHash or the blocks call
             them duplicates and each holds 0.4; and they share their
             numbers
  related    they share some features, and no more
copies first, each grade by score (the mean of the featurestring, minhash,
blocks and jaccard values). Copies suppressed from the search index are
listed too (INDEXED false).`,
		Example: `  # The reprints of the bee story, and what else shares some of it
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup similar --index /tmp/idx en/harbor-gazette/library-bees

  # Pages of the index similar to a page that is not in it
  bleve-dedup similar --index /tmp/idx --text testdata/pages/en/daily-reader/rooftop-hives-reprint.html

  # Plain text from stdin, one JSON object a similar document
  printf 'first paragraph\nsecond paragraph\n' | bleve-dedup similar --index /tmp/idx --text - --format jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("text") {
				return needArgs(0, 0, "no ID with --text")(cmd, args)
			}
			return needArgs(1, 1, "one document ID, or --text FILE")(cmd, args)
		},
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// similarLine is the JSON-lines form of a similar document.
type similarLine struct {
	Rank        int                     `json:"rank"`
	ID          string                  `json:"id"`
	URL         string                  `json:"url"`
	Title       string                  `json:"title"`
	Cluster     string                  `json:"cluster"`
	Indexed     bool                    `json:"indexed"`
	Grade       dedupfilter.Grade       `json:"grade"`
	Score       float64                 `json:"score"`
	SameCluster bool                    `json:"same_cluster"`
	Lists       dedupfilter.SharedLists `json:"lists"`
	// Verdict is compare's, the query's page as A.
	Verdict any `json:"verdict"`
}

func (o *similarCmd) run(cmd *cobra.Command, args []string) error {
	if err := need(cmd, "similar: name the index: --index DIR", "index"); err != nil {
		return err
	}
	if o.k < 1 || o.k > dedupfilter.MaxSimilarCandidates {
		return fmt.Errorf("--k %d: want 1 to %d", o.k, dedupfilter.MaxSimilarCandidates)
	}
	req := indexer.SimilarRequest{K: o.k}
	if len(args) == 1 {
		req.ID = args[0]
	} else {
		var err error
		if req.Paragraphs, req.URL, err = readText(o.text, cmd.InOrStdin()); err != nil {
			return err
		}
	}
	ix, err := o.index.open()
	if err != nil {
		return err
	}
	defer ix.Close()
	found, err := ix.Similar(cmd.Context(), req)
	switch {
	case errors.Is(err, dedupfilter.ErrNotFound):
		return fmt.Errorf("similar: no document %q in %s", req.ID, strings.Join(o.index.dirs, ", "))
	case errors.Is(err, indexer.ErrInvalidDocument):
		return fmt.Errorf("similar: %s has no text to compare", o.text)
	case err != nil:
		return err
	}
	out := cmd.OutOrStdout()
	if o.format.jsonl {
		enc := jsonLines(out)
		for i, s := range found {
			l := similarLine{Rank: i + 1, ID: s.ID, URL: s.URL, Title: s.Title, Cluster: s.Cluster, Indexed: s.Indexed,
				Grade: s.Grade, Score: s.Score, SameCluster: s.SameCluster, Lists: s.Lists, Verdict: verdictJSON(s.Verdict)}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tGRADE\tSCORE\tBANDS\tBLOCKS\tPIECES\tTERMS HELD\tVERDICT\tINDEXED\tID\tTITLE")
	for i, s := range found {
		v := s.Verdict
		verdict := fmt.Sprintf("%d votes", v.Votes)
		switch {
		case v.Duplicate:
			verdict = "duplicate (" + v.Measure.String() + ")"
		case s.SameCluster:
			verdict = fmt.Sprintf("same cluster, %d votes", v.Votes)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%d\t%d\t%d\t%.2f/%.2f\t%s\t%v\t%s\t%s\n", i+1, s.Grade, s.Score,
			s.Lists.Bands, s.Lists.Blocks, s.Lists.Pieces, v.InB, v.InA, verdict, s.Indexed, s.ID, s.Title)
	}
	fmt.Fprintf(tw, "(%d similar documents; TERMS HELD: the share of the page's distinct terms each holds / of its own the page holds)\n", len(found))
	return tw.Flush()
}

// readText reads the page of --text: a page file as index reads it, or
// with "-" plain text from r, a paragraph a line, at most
// page.DefaultMaxBytes.
func readText(path string, r io.Reader) (paras []string, url string, err error) {
	if path != "-" {
		if _, err := os.Stat(path); err != nil {
			return nil, "", fmt.Errorf("--text: %w", err)
		}
		d, err := readOne(path, page.DefaultOptions())
		if err != nil {
			return nil, "", fmt.Errorf("--text: %w", err)
		}
		return d.Paragraphs, d.URL, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, page.DefaultMaxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("--text -: %w", err)
	}
	if len(b) > page.DefaultMaxBytes {
		return nil, "", fmt.Errorf("--text -: more than %d bytes", page.DefaultMaxBytes)
	}
	return indexer.Paragraphs(string(b)), "", nil
}
