//go:build trafilatura

package main

// Built with -tags trafilatura, the command links package extract's
// Trafilatura engine. It is left out by default because go-trafilatura's
// date parser adds about half a second and 50 MB of RSS to every
// start-up, --help included; no subcommand selects the engine (they all
// extract with Native), so the tag only links it.
import _ "github.com/bleve-dedup/bleve-dedup/extract/trafilatura"
