package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bleve-dedup/bleve-dedup/indexer"
)

type statsCmd struct {
	index  indexFlags
	format formatFlag
}

func (o *statsCmd) AddFlags(fs *pflag.FlagSet) {
	o.index.AddFlags(fs, "the index directory `DIR` (or a plain bleve index adopted with bleve-dedup adopt); several, with --store, are shards added up")
	o.index.readsAdopted()
	o.format.AddFlags(fs, `one {"docs","indexed","clusters","bleve_bytes","store_bytes","parts":[{"name","keys","bytes"}]} object`)
}

func newStatsCmd() *cobra.Command {
	var o statsCmd
	cmd := &cobra.Command{
		Use:   "stats --index DIR [--format table|jsonl]",
		Short: "Show what an index holds and what it takes on disk",
		Long: `stats shows an index's documents (those the filter holds, those in bleve)
and clusters, the bytes its bleve index and its store take on disk, and the
store's contents by kind: payloads (each document's body, which the
index's own mapping keeps only there), signatures, site tables, records,
and the rest, with their keys and bytes (before Badger's own overhead) and
bytes a document. It reads every key of the store, not the values. With a
shared --store, the documents and clusters are the shared store's, the
bytes this machine's, and the parts are not measured.`,
		Example: `  # The shipped pages
  bleve-dedup index --index /tmp/idx testdata/pages
  bleve-dedup stats --index /tmp/idx

  # For a program
  bleve-dedup stats --index /tmp/idx --format jsonl`,
		Args: needArgs(0, 0, "no arguments (the index is --index)"),
		RunE: stoppable(func(cmd *cobra.Command, args []string) error { return o.run(cmd) }),
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// usageLine is the JSON form of an index's usage.
type usageLine struct {
	Docs       int        `json:"docs"`
	Indexed    uint64     `json:"indexed"`
	Clusters   int        `json:"clusters"`
	BleveBytes int64      `json:"bleve_bytes"`
	StoreBytes int64      `json:"store_bytes"`
	Parts      []partLine `json:"parts"`
}

type partLine struct {
	Name  string `json:"name"`
	Keys  int    `json:"keys"`
	Bytes int64  `json:"bytes"`
}

func (o *statsCmd) run(cmd *cobra.Command) error {
	ix, err := o.index.open()
	if err != nil {
		return err
	}
	defer ix.Close()
	u, err := ix.Usage()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.format.jsonl {
		l := usageLine{Docs: u.Docs, Indexed: u.Indexed, Clusters: u.Clusters, BleveBytes: u.BleveBytes, StoreBytes: u.StoreBytes, Parts: []partLine{}}
		for _, p := range u.Parts {
			l.Parts = append(l.Parts, partLine(p))
		}
		return jsonLines(out).Encode(l)
	}
	return writeUsage(out, u)
}

// writeUsage writes u as a table for people: bytes a document are of the
// documents in bleve for the bleve index, of the store's for the rest.
func writeUsage(out io.Writer, u indexer.Usage) error {
	perDoc := func(n int64, docs uint64) string {
		if docs == 0 {
			return "-"
		}
		return fmt.Sprint(n / int64(docs))
	}
	const row = "%-14s %10s %12s %10s\n"
	var w strings.Builder
	fmt.Fprintf(&w, "documents: %d in the store, %d in bleve; %d clusters\n\n", u.Docs, u.Indexed, u.Clusters)
	fmt.Fprintf(&w, row, "", "", "BYTES", "BYTES/DOC")
	fmt.Fprintf(&w, row, "bleve index", "", sizeString(u.BleveBytes), perDoc(u.BleveBytes, u.Indexed))
	fmt.Fprintf(&w, row, "store", "", sizeString(u.StoreBytes), perDoc(u.StoreBytes, uint64(u.Docs)))
	if len(u.Parts) > 0 {
		fmt.Fprintf(&w, "\n"+row, "STORE PART", "KEYS", "BYTES", "BYTES/DOC")
		for _, p := range u.Parts {
			fmt.Fprintf(&w, row, p.Name, fmt.Sprint(p.Keys), sizeString(p.Bytes), perDoc(p.Bytes, uint64(u.Docs)))
		}
	}
	_, err := io.WriteString(out, w.String())
	return err
}
