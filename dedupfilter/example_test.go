package dedupfilter_test

import (
	"fmt"
	"log"
	"os"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/store/embedded"
)

// newFilter returns an analyzer and a filter over an embedded store in
// memory ("": a real indexer passes a directory), whose records keep only
// the posting keys the filter cannot derive from a stored signature again.
func newFilter() (*analyzer.Analyzer, *dedupfilter.Filter) {
	an, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	opts := dedupfilter.DefaultOptions()
	eo := embedded.DefaultOptions("")
	eo.SignatureKeys = opts.SignatureKeys
	b, err := embedded.Open(eo)
	if err != nil {
		log.Fatal(err)
	}
	f, err := dedupfilter.New(b, opts)
	if err != nil {
		log.Fatal(err)
	}
	return an, f
}

func Example() {
	an, f := newFilter()
	defer f.Close() // and the store

	article := []string{
		"The city council approved the new budget on Tuesday after a long debate. Spending on parks rises by ten percent.",
		"Opponents said the plan ignores rising rents. The mayor promised a housing review before the summer recess.",
		"The budget takes effect in January. Officials expect the first park projects to begin in the spring.",
	}
	reprint := append([]string{"Reprinted from City News."}, article...)

	for _, d := range []dedupfilter.Doc{
		{ID: "citynews/1", Features: an.Analyze(article), Payload: []byte(`{"title":"Budget approved"}`)},
		{ID: "aggregator/77", Features: an.Analyze(reprint), Payload: []byte(`{"title":"Council budget"}`)},
	} {
		dec, err := f.Add(d)
		if err != nil {
			log.Fatal(err)
		}
		// Apply dec.Ops to the search index here, then confirm them.
		if err := f.Applied(dec.Ops...); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: duplicate=%v of=%q action=%v\n", d.ID, dec.Duplicate, dec.Of, dec.Action)
	}
	c, err := f.ClusterOf("aggregator/77")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("representative:", c.Representative, "members:", c.Members)
	// Output:
	// citynews/1: duplicate=false of="" action=index
	// aggregator/77: duplicate=true of="citynews/1" action=skip
	// representative: citynews/1 members: [aggregator/77 citynews/1]
}

// A search index that keeps what it is given holds the payloads of the
// documents in it: the store keeps those of the documents left out.
func ExampleFilter_KeepPayloadsIn() {
	an, f := newFilter()
	defer f.Close()

	searchIndex := map[string][]byte{} // id -> the document as indexed
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	err = f.KeepPayloadsIn(dedupfilter.IndexPayloads{
		Read: func(id string) ([]byte, error) {
			p, ok := searchIndex[id]
			if !ok {
				return nil, fmt.Errorf("%s: %w", id, dedupfilter.ErrNotFound)
			}
			return p, nil
		},
		Journal: dir,
	})
	if err != nil {
		log.Fatal(err)
	}

	article := []string{
		"The city council approved the new budget on Tuesday after a long debate. Spending on parks rises by ten percent.",
		"Opponents said the plan ignores rising rents. The mayor promised a housing review before the summer recess.",
	}
	for _, d := range []dedupfilter.Doc{
		{ID: "citynews/1", Features: an.Analyze(article), Payload: []byte(`{"title":"Budget approved"}`)},
		{ID: "aggregator/77", Features: an.Analyze(article), Payload: []byte(`{"title":"Council budget"}`)},
	} {
		dec, err := f.Add(d)
		if err != nil {
			log.Fatal(err)
		}
		for _, op := range dec.Ops {
			if op.Kind == dedupfilter.OpIndex {
				searchIndex[op.ID] = op.Payload
			} else {
				delete(searchIndex, op.ID)
			}
		}
		if err := f.Applied(dec.Ops...); err != nil {
			log.Fatal(err)
		}
	}
	for _, id := range []string{"citynews/1", "aggregator/77"} {
		e, err := f.Doc(id)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: in the index %v, payload %s\n", id, e.Indexed, e.Payload)
	}
	// Output:
	// citynews/1: in the index true, payload {"title":"Budget approved"}
	// aggregator/77: in the index false, payload {"title":"Council budget"}
}
