package server

import (
	_ "embed"
	"errors"
	"net/http"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

// syntaxHelp is an example query with what it shows.
type syntaxHelp struct {
	Query  string `json:"query"`
	Syntax string `json:"syntax"`
	Says   string `json:"says"`
}

// syntaxExamples are the start page's query help on an index of which no
// example could be made (indexExamples): an empty one. Each finds pages
// of the repository's testdata/pages (TestSyntaxExamples).
var syntaxExamples = []syntaxHelp{
	{"bees", "boolean", "pages with the word"},
	{"library AND bees", "boolean", "both words (AND, or *)"},
	{"bees OR tide", "boolean", "either word (OR, or +)"},
	{"bees NOT meadow", "boolean", "the first but not the second (NOT, or -)"},
	{"(tide OR bees) AND harbor", "boolean", "parentheses group"},
	{`"harbour office"`, "boolean", "a phrase, words in this order"},
	{"title:bees", "boolean", "a word in the title only"},
	{"图书馆", "boolean", "Chinese: characters in this order, no spaces needed"},
	{"绿道 OR 图书馆", "boolean", "Chinese words combined like English ones"},
	{"bee*", "querystring", "bleve's query string: wildcards, +must -not, field:value"},
}

//go:embed openapi.json
var openAPI []byte

// serveOpenAPI serves GET /api/openapi.json, the API's description.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPI)
	return nil
}

// changed records that this server changed the index (an ingest
// committed pages): the catalog is read again.
func (s *Server) changed() {
	s.gen.Add(1)
	s.lastChange.Store(time.Now().UnixNano())
}

// lastIngest is the time this server last changed the index; zero when
// it has not.
func (s *Server) lastIngest() time.Time {
	if n := s.lastChange.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func timeSince(t time.Time) float64 { return time.Since(t).Seconds() }

func isNotFound(err error) bool { return errors.Is(err, dedupfilter.ErrNotFound) }
