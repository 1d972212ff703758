package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/extract"
)

type extractCmd struct {
	format formatFlag
	pages  pageFlags
}

func (o *extractCmd) AddFlags(fs *pflag.FlagSet) {
	o.format.AddFlags(fs, `{"id","url"?,"title","text","charset","charset_source"} a page`)
	o.pages.AddFlags(fs)
}

func newExtractCmd() *cobra.Command {
	var o extractCmd
	cmd := &cobra.Command{
		Use:   "extract [--format table|jsonl] INPUT...",
		Short: "Print the main text the dedup filter sees for each page",
		Long: `extract reads pages like index does and prints the title and main text that
the analyzers see: a readable block per page (--format table, the
default: "== ID", the title, the paragraphs), or with --format jsonl one
{"id","url"?,"title","text","charset","charset_source"} object a line
(paragraphs joined by newlines; charset_source is bom, header, meta,
sniffed, overridden or jsonl).`,
		Example: `  # The main text of one page, without its site's navigation and sidebars
  bleve-dedup extract testdata/pages/en/harbor-gazette/library-bees.html

  # A GBK page with no charset declared: the charset found, and how
  bleve-dedup extract --format jsonl testdata/pages/zh/forum/greenway-repost.html

  # Every page of a directory or a crawl's archive
  bleve-dedup extract --format jsonl testdata/pages > pages.jsonl
  bleve-dedup extract crawl.warc.gz | less`,
		Args: needArgs(1, -1, "the pages to read: directories, .html, .txt, .jsonl or .warc files"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// extractLine is the JSON-lines form of a page's main text.
type extractLine struct {
	ID            string `json:"id"`
	URL           string `json:"url,omitempty"`
	Title         string `json:"title"`
	Text          string `json:"text"`
	Charset       string `json:"charset"`
	CharsetSource string `json:"charset_source"`
}

func (o *extractCmd) run(cmd *cobra.Command, inputs []string) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	enc := jsonLines(out)
	in, err := openInputs(inputs)
	if err != nil {
		return err
	}
	in.warnNotRead(cmd.ErrOrStderr())
	var errs int
	for p, err := range in.pages(o.pages.options()) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var c extract.Content
		if err == nil {
			if c, err = extract.FromPage(p); err != nil {
				err = fmt.Errorf("%s: %w", p.Source, err)
			}
		}
		if err != nil {
			errs++
			fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: error:", err)
			continue
		}
		if o.format.jsonl {
			if err := enc.Encode(extractLine{p.ID, p.URL, c.Title, c.Text(), p.Charset, p.CharsetSource}); err != nil {
				return err // the output is gone; stop
			}
			continue
		}
		fmt.Fprintf(out, "== %s\n%s\n\n%s\n\n", p.ID, c.Title, strings.Join(c.Paragraphs, "\n\n"))
	}
	return partial(errs, "1 page not extracted because of an error (named above)", "%d pages not extracted because of errors (named above)")
}
