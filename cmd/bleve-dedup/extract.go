package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/page"
)

type extractCmd struct {
	format   format
	maxBytes int64
}

func (o *extractCmd) AddFlags(fs *pflag.FlagSet) {
	o.format = newFormat("text", "text", "jsonl")
	o.format.addFlag(fs)
	fs.Int64Var(&o.maxBytes, "max-bytes", page.DefaultMaxBytes, "skip pages larger than this many bytes (0: no limit)")
}

func newExtractCmd() *cobra.Command {
	var o extractCmd
	cmd := &cobra.Command{
		Use:   "extract [--format jsonl] INPUT...",
		Short: "Print the main text the dedup filter sees for each page",
		Long: `extract reads pages like index does and prints the title and main text that
the analyzers see: a readable block per page, or with --format jsonl one
{"id","title","text","charset","charset_source"} object a line (paragraphs
joined by newlines; charset_source is bom, header, meta, sniffed,
overridden or jsonl).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
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
	out := cmd.OutOrStdout()
	enc := jsonLines(out)
	opts := page.DefaultOptions()
	opts.MaxBytes = o.maxBytes
	var errs int
	for p, err := range page.Read(inputs, opts) {
		var c extract.Content
		if err == nil {
			if c, err = extract.FromPage(p); err != nil {
				err = fmt.Errorf("%s: %w", p.Source, err)
			}
		}
		if err != nil {
			errs++
			fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: extract:", err)
			continue
		}
		if o.format.value == "jsonl" {
			if err := enc.Encode(extractLine{p.ID, p.URL, c.Title, c.Text(), p.Charset, p.CharsetSource}); err != nil {
				return err // the output is gone; stop
			}
			continue
		}
		fmt.Fprintf(out, "== %s\n%s\n\n%s\n\n", p.ID, c.Title, strings.Join(c.Paragraphs, "\n\n"))
	}
	return skipped(errs)
}
