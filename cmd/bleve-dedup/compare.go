package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

type compareCmd struct {
	filter  filterFlags
	methods methodFlags
	format  formatFlag
}

func (o *compareCmd) AddFlags(fs *pflag.FlagSet) {
	o.format.AddFlags(fs, "the verdict as one JSON object on one line")
	o.filter.AddFlags(fs)
	o.methods.AddFlags(fs)
}

func newCompareCmd() *cobra.Command {
	var o compareCmd
	cmd := &cobra.Command{
		Use:   "compare [--format table|jsonl] A B",
		Short: "Explain whether two pages are near-duplicates",
		Long: `compare reads two pages (files as index reads them: .html, .htm, .txt,
optionally .gz), extracts and analyses them, and prints the verdict with
every measure's value and whether it alone calls them duplicates, and the
shared feature-string pieces, block fingerprints and terms behind it. Besides
the measures that vote (--voters), it shows the feature-string paper's other
methods: charfreq (cosine of character frequencies), tagedit (edit distance
of the HTML tag sequences) and sameurl (canonical URLs equal).

A and B are page files (.html, .htm, .txt, optionally .gz) or JSONL or
WARC files whose first page is compared.`,
		Example: `  # A reprint in another site's template, retitled and edited: near-duplicates
  bleve-dedup compare testdata/pages/en/harbor-gazette/library-bees.html testdata/pages/en/daily-reader/rooftop-hives-reprint.html

  # Two articles in one template: different, though their pages look alike
  bleve-dedup compare testdata/pages/en/harbor-gazette/library-bees.html testdata/pages/en/harbor-gazette/bike-workshop.html

  # The verdict as one JSON line, under another measure
  bleve-dedup compare --format jsonl --measure featurestring testdata/pages/zh/hedong-news/library-night.html testdata/pages/zh/tw-mirror/library-night.html`,
		Args: needArgs(2, 2, "two pages, A and B"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0], args[1]) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *compareCmd) run(cmd *cobra.Command, a, b string) error {
	opts := filled(indexer.Options{})
	if err := o.filter.apply(&opts); err != nil {
		return err
	}
	if err := o.methods.apply(opts.Filter); err != nil {
		return err
	}
	an, err := analyzer.New(*opts.Analyzer)
	if err != nil {
		return err
	}
	var sigs [2]similarity.Signature
	var feats [2]*analyzer.Features
	for i, path := range []string{a, b} {
		d, err := readOne(path, page.DefaultOptions())
		if err != nil {
			return err
		}
		feats[i] = an.Analyze(d.Paragraphs)
		feats[i].Tags = d.Tags
		sigs[i] = similarity.New(feats[i]).WithURL(d.URL)
	}
	v := similarity.Compare(sigs[0], sigs[1], opts.Filter.Options)
	out := cmd.OutOrStdout()
	if o.format.jsonl {
		return jsonLines(out).Encode(verdictJSON(v))
	}
	verdict := "different"
	if v.Duplicate {
		verdict = "near-duplicates"
	}
	so := opts.Filter.Options
	if so.Measure == similarity.Combined {
		fmt.Fprintf(out, "%s (decided by %s, similarity %.3f): %d kinds of evidence agree, %d needed, one of them text in order (featurestring, minhash or blocks); the term-set measures count as one\n",
			verdict, v.Measure, v.Similarity, v.Votes, so.Votes)
		if why := barText(v, so); why != "" {
			fmt.Fprintf(out, "but %s\n", why)
		}
		fmt.Fprintln(out)
	} else {
		fmt.Fprintf(out, "%s (decided by %s, similarity %.3f)\n\n", verdict, v.Measure, v.Similarity)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASURE\tVALUE\tDUPLICATE")
	for _, s := range v.Scores {
		fmt.Fprintf(tw, "%s\t%.3f\t%v\n", s.Measure, s.Value, s.Duplicate)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nshared feature-string pieces (in order): %d of %d and %d\n", v.SharedPieces, len(feats[0].Pieces), len(feats[1].Pieces))
	fmt.Fprintf(out, "shared block fingerprints: %d of %d and %d\n", v.SharedBlocks, len(feats[0].Blocks), len(feats[1].Blocks))
	fmt.Fprintf(out, "shared terms: %d of %d and %d (e.g. %s)\n", v.SharedTerms, len(feats[0].Terms), len(feats[1].Terms), strings.Join(v.TermSample, " "))
	fmt.Fprintf(out, "\nof A's distinct terms B holds %.3f; of B's, A holds %.3f (duplicates need %.2f both ways)\n", v.InB, v.InA, so.HeldMin)
	fmt.Fprintf(out, "of the numbers of the page with fewer, the other has %.2f\n", v.Numbers)
	if !v.Duplicate {
		return nil
	}
	for _, x := range []struct {
		page, kept string
		held       float64
	}{{"A", "B", v.SurelyInB}, {"B", "A", v.SurelyInA}} {
		if x.held >= so.CoverMin {
			fmt.Fprintf(out, "with %s kept, %s may leave the search index: %s holds %.0f%% of its terms (at least %.0f%%)\n", x.kept, x.page, x.kept, 100*x.held, 100*so.CoverMin)
		} else {
			fmt.Fprintf(out, "with %s kept, %s stays in the search index: %s holds %.0f%% of its terms, under %.0f%%\n", x.kept, x.page, x.kept, 100*x.held, 100*so.CoverMin)
		}
	}
	return nil
}

// barText says which bar a pair the votes call duplicates failed.
func barText(v similarity.Verdict, o similarity.Options) string {
	switch v.Bar {
	case similarity.BarHeld:
		return fmt.Sprintf("a page holds %.2f of the other's distinct terms, under --held-min %.2f", min(v.InB, v.InA), o.HeldMin)
	case similarity.BarMinHash:
		mh, _ := v.Score(similarity.MinHash)
		return fmt.Sprintf("minhash %.3f is under its floor %.2f", mh.Value, o.MinHashFloor)
	case similarity.BarNumbers:
		return fmt.Sprintf("only the feature strings agree in order, and the pages share %.2f of their numbers, under --numbers-min %.2f: a page written from another's template", v.Numbers, o.NumbersMin)
	case similarity.BarFeatureStringHeld:
		return fmt.Sprintf("only the feature strings agree in order, and a page holds %.2f of the other's distinct terms, under --featurestring-held-min %.2f", min(v.InB, v.InA), o.FeatureStringHeldMin)
	case similarity.BarWholeHeld:
		return fmt.Sprintf("B holds %.2f of the distinct terms of A's whole text, under --whole-held-min %.2f: A has more text of its own", v.WholeInB, o.WholeHeldMin)
	}
	return ""
}

// readOne reads and extracts the single page in path.
func readOne(path string, po page.Options) (indexer.Document, error) {
	for p, err := range page.Read([]string{path}, po) {
		if err != nil {
			return indexer.Document{}, err
		}
		return indexer.FromPage(p)
	}
	return indexer.Document{}, fmt.Errorf("%s: no page in it", path)
}

func verdictJSON(v similarity.Verdict) any {
	type score struct {
		Measure   string  `json:"measure"`
		Value     float64 `json:"value"`
		Duplicate bool    `json:"duplicate"`
	}
	scores := make([]score, len(v.Scores))
	for i, s := range v.Scores {
		scores[i] = score{s.Measure.String(), s.Value, s.Duplicate}
	}
	return struct {
		Duplicate    bool     `json:"duplicate"`
		Measure      string   `json:"measure"`
		Similarity   float64  `json:"similarity"`
		Scores       []score  `json:"scores"`
		SharedPieces int      `json:"shared_pieces"`
		SharedBlocks int      `json:"shared_blocks"`
		SharedTerms  int      `json:"shared_terms"`
		TermSample   []string `json:"term_sample"`
		InB          float64  `json:"a_in_b"` // of A's distinct terms, the share B holds
		InA          float64  `json:"b_in_a"`
		Numbers      float64  `json:"numbers"` // of the numbers of the page with fewer, the share the other has
		Bar          string   `json:"bar,omitempty"`
	}{v.Duplicate, v.Measure.String(), v.Similarity, scores, v.SharedPieces, v.SharedBlocks, v.SharedTerms, v.TermSample, v.InB, v.InA, v.Numbers, string(v.Bar)}
}
