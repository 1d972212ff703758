package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/internal/docbody"
)

// LostShare is the requirements' bound: a page left out whose distinct
// terms are less than this share present in its cluster's kept page has
// lost content. A reprint with edits keeps 0.8 and more; a page that
// only quotes another keeps far less.
const LostShare = 0.6

// lostShown is how many lost pages Lost.Worst names, for diagnosis.
const lostShown = 5

// PayloadReader walks the clusters of a dedup store and reads its
// documents' payloads; *dedupfilter.Filter is one.
type PayloadReader interface {
	ClusterLister
	Doc(id string) (dedupfilter.Entry, error)
}

// LostPage is a page left out and what of it its cluster's kept page
// holds.
type LostPage struct {
	ID    string
	Kept  string  // the cluster's representative
	Share float64 // of ID's distinct terms, the share Kept holds
}

// Lost is the content an index leaves out: the cluster members that are
// not in the search index (under policy mark, none).
type Lost struct {
	LeftOut int // pages left out
	Lost    int // of those, the pages with a share under the bound
	// MinShare is the lowest share of a page left out, 1 when none is.
	MinShare float64
	// Worst are up to five lost pages, lowest share first.
	Worst []LostPage
}

// LostContent measures the content lost to the clusters r holds: for each
// member the search index does not hold, the share of its
// distinct terms (those of Features.Terms: lowercased words, Han
// character bigrams) that the representative's text holds. A page with a
// share under bound (LostShare, say) is lost. textOf reads the main text
// of a payload (TextFields, say).
func LostContent(r PayloadReader, textOf func(payload []byte) (string, error), bound float64) (Lost, error) {
	// Collected first: reading documents inside the walk would nest
	// store transactions.
	var clusters []dedupfilter.Cluster
	err := r.Clusters(func(c dedupfilter.Cluster) error {
		if len(c.Members) > 1 {
			clusters = append(clusters, c)
		}
		return nil
	})
	if err != nil {
		return Lost{}, fmt.Errorf("eval: clusters: %w", err)
	}
	l := Lost{MinShare: 1}
	var lost []LostPage
	// terms returns a document's terms, nil when it is in the search index.
	terms := func(id string, kept bool) (map[string]bool, error) {
		e, err := r.Doc(id)
		if err != nil {
			return nil, fmt.Errorf("eval: payload of %s: %w", id, err)
		}
		if e.Indexed && !kept {
			return nil, nil
		}
		text, err := textOf(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("eval: text of %s: %w", id, err)
		}
		return termSet(text), nil
	}
	for _, c := range clusters {
		kept, err := terms(c.Representative, true)
		if err != nil {
			return Lost{}, err
		}
		for _, id := range c.Members {
			if id == c.Representative {
				continue
			}
			t, err := terms(id, false)
			if err != nil {
				return Lost{}, err
			}
			if t == nil {
				continue
			}
			s := share(t, kept)
			l.LeftOut++
			l.MinShare = min(l.MinShare, s)
			if s < bound {
				lost = append(lost, LostPage{ID: id, Kept: c.Representative, Share: s})
			}
		}
	}
	l.Lost = len(lost)
	slices.SortFunc(lost, func(a, b LostPage) int {
		return cmp.Or(cmp.Compare(a.Share, b.Share), strings.Compare(a.ID, b.ID))
	})
	l.Worst = lost[:min(len(lost), lostShown)]
	return l, nil
}

// termSet returns the distinct terms of text, as the analyzer makes
// Features.Terms of a page's paragraphs.
func termSet(text string) map[string]bool {
	norm := analyzer.AppendNormalized(nil, text)
	set := map[string]bool{}
	analyzer.EachTerm(norm, func(term []byte) { set[string(term)] = true })
	return set
}

// share is the share of a's terms that b holds; 1 when a has none, as a
// page without text loses nothing.
func share(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 1
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// TextFields returns a textOf for LostContent that reads a JSON payload's
// string values at the given bleve field paths ("a.b" for b inside a),
// joined by line breaks.
func TextFields(paths ...string) func(payload []byte) (string, error) {
	return func(payload []byte) (string, error) {
		var body map[string]any
		if err := json.Unmarshal(payload, &body); err != nil {
			return "", err // LostContent says whose
		}
		var texts []string
		for _, p := range paths {
			texts = append(texts, docbody.Strings(body, p)...)
		}
		return strings.Join(texts, "\n"), nil
	}
}
