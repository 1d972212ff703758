// Command bleve-dedup indexes web pages into bleve while keeping duplicate
// and near-duplicate pages out, and inspects the result. Every subcommand is
// a thin client of the library packages; see README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "bleve-dedup:", err)
		os.Exit(1)
	}
}
