package server

import (
	"slices"
)

// Routes returns the paths s routes besides the page's files, sorted.
func Routes(s *Server) []string {
	var out []string
	for p := range s.routes() {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Language, Site and SizeBucket export what facets count by.
var (
	Language   = language
	Site       = site
	SizeBucket = sizeBucket
)

// SyntaxExamples returns the start page's example queries and their
// syntaxes.
func SyntaxExamples() (queries, syntaxes []string) {
	for _, e := range syntaxExamples {
		queries, syntaxes = append(queries, e.Query), append(syntaxes, e.Syntax)
	}
	return queries, syntaxes
}
