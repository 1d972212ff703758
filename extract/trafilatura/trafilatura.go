// Package trafilatura links the Trafilatura engine of package extract:
// importing it, even blank, lets extract.Options with Engine
// extract.Trafilatura run go-trafilatura (balanced focus, its
// go-readability and go-domdistiller fallbacks, a 100-rune minimum article
// length; see extract.Options). It is a package of its own because
// go-trafilatura links go-dateparser, whose package initialisation costs
// every program about half a second and 78 MB of allocations at start-up
// and 25 MiB of heap for as long as it runs.
//
//	import _ "github.com/bleve-dedup/bleve-dedup/extract/trafilatura"
package trafilatura

import (
	"net/url"
	"strings"

	gotrafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/bleve-dedup/bleve-dedup/extract"
)

func init() {
	extract.RegisterEngine(extract.Trafilatura, extractDocument)
}

// focus maps extract's Focus values, which extract validates, to
// go-trafilatura's.
var focus = [...]gotrafilatura.ExtractionFocus{
	extract.Balanced:       gotrafilatura.Balanced,
	extract.FavorRecall:    gotrafilatura.FavorRecall,
	extract.FavorPrecision: gotrafilatura.FavorPrecision,
}

// extractDocument is the engine (extract.EngineFunc). A page html.Parse
// cannot read (more than 512 open elements) has no content node.
func extractDocument(doc string, pageURL *url.URL, o extract.Options) (string, *html.Node, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return "", nil, nil
	}
	res, err := gotrafilatura.ExtractDocument(root, gotrafilatura.Options{
		OriginalURL:     pageURL,
		EnableFallback:  o.Fallback,
		Focus:           focus[o.Focus],
		ExcludeComments: true,
		IncludeLinks:    true,                   // kept to measure link density of paragraphs
		HtmlDateMode:    gotrafilatura.Disabled, // dates are not needed, and the date scan is slow
		Config:          config(o),
	})
	if err != nil {
		return "", nil, err
	}
	return res.Metadata.Title, res.ContentNode, nil
}

// config returns go-trafilatura's configuration for o.
func config(o extract.Options) *gotrafilatura.Config {
	c := gotrafilatura.DefaultConfig()
	c.MinExtractedSize = o.MinArticleRunes
	return c
}
