package server

import (
	"hash/maphash"
	"slices"
)

// TrimWords exports trimWords to the tests.
var TrimWords = trimWords

var testSeed = maphash.MakeSeed()

// Routes returns the paths s routes besides the page's files, sorted.
func Routes(s *Server) []string {
	var out []string
	for p := range s.routes() {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
