package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bleve-dedup/bleve-dedup/extract"
	"github.com/bleve-dedup/bleve-dedup/page"
)

func newExtractCmd() *cobra.Command {
	var format string
	var maxBytes int64
	cmd := &cobra.Command{
		Use:   "extract [--format jsonl] INPUT...",
		Short: "Print the main text the dedup filter sees for each page",
		Long: `extract reads pages like index does and prints the title and main text that
the analyzers see: a readable block per page, or with --format jsonl one
{"id","title","text","charset","charset_source"} object a line (paragraphs
joined by newlines; charset_source is bom, header, meta, sniffed,
overridden or jsonl).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "jsonl" {
				return fmt.Errorf("--format: want text or jsonl, got %q", format)
			}
			out := cmd.OutOrStdout()
			enc := json.NewEncoder(out)
			enc.SetEscapeHTML(false)
			opts := page.DefaultOptions()
			opts.MaxBytes = maxBytes
			var errs int
			for p, err := range page.Read(args, opts) {
				if err == nil {
					var c extract.Content
					c, err = extract.FromPage(p)
					if err == nil {
						if format == "jsonl" {
							err = enc.Encode(struct {
								ID            string `json:"id"`
								URL           string `json:"url,omitempty"`
								Title         string `json:"title"`
								Text          string `json:"text"`
								Charset       string `json:"charset"`
								CharsetSource string `json:"charset_source"`
							}{p.ID, p.URL, c.Title, c.Text(), p.Charset, p.CharsetSource})
							if err != nil {
								return err // the output is gone; stop
							}
						} else {
							fmt.Fprintf(out, "== %s\n%s\n\n%s\n\n", p.ID, c.Title, strings.Join(c.Paragraphs, "\n\n"))
						}
						continue
					}
					err = fmt.Errorf("%s: %w", p.Source, err)
				}
				errs++
				fmt.Fprintln(cmd.ErrOrStderr(), "bleve-dedup: extract:", err)
			}
			if errs > 0 {
				return fmt.Errorf("%d pages could not be read or extracted", errs)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or jsonl")
	cmd.Flags().Int64Var(&maxBytes, "max-bytes", page.DefaultOptions().MaxBytes, "skip pages larger than this many bytes")
	return cmd
}
