package dedupfilter

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// cand is a stored document sharing hits posting lists with the one
// being decided.
type cand struct {
	seq  uint64
	hits int
}

// ranked returns the documents in lists (stop lists skipped) sharing at
// least MinShared of them, not in skip and, if before > 0, numbered below
// it: most shared lists first, then the oldest. Without StructureGate at
// most MaxCandidates; the gate cuts after it has kept them. hits is
// scratch space, cleared first: a decision counts some thousands of
// postings, and a new map for each was a fifth of the filter's garbage,
// so plans made under the filter's lock share one (Filter.hits).
func ranked(lists []store.PostingList, skip map[uint64]bool, before uint64, o Options, hits map[uint64]int) []cand {
	clear(hits)
	for _, l := range lists {
		if l.Full || len(l.Seqs) > o.MaxPostings { // (MaxPostings may have been lowered)
			continue
		}
		for _, c := range l.Seqs {
			if !skip[c] && (before == 0 || c < before) {
				hits[c]++
			}
		}
	}
	cands := make([]cand, 0, len(hits))
	for c, n := range hits {
		if n >= o.MinShared {
			cands = append(cands, cand{c, n})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.hits != b.hits {
			return b.hits - a.hits
		}
		return cmp.Compare(a.seq, b.seq)
	})
	if o.StructureGate < 0 && len(cands) > o.MaxCandidates {
		cands = cands[:o.MaxCandidates]
	}
	return cands
}

// sameCell reports whether two structure cells lie within r of each
// other in every coordinate.
func sameCell(a, b analyzer.Structure, r int) bool {
	return neighbours(a.Paragraphs, b.Paragraphs, r) && neighbours(a.Length, b.Length, r) && neighbours(a.Sentences, b.Sentences, r)
}

func neighbours(a, b, r int) bool { return a-b <= r && b-a <= r }

// restrictLookup keeps the lookup keys of the kinds in o.Sources.
func (o Options) restrictLookup(keys [][]byte) [][]byte {
	if len(o.Sources) == len(AllSources()) {
		return keys
	}
	kinds := map[Source]byte{BandSource: kindBand, StructureSource: kindStructure, BlockSource: kindBlock, TermSource: kindTerm, PieceSource: kindPiece}
	out := keys[:0:0]
	for _, k := range keys {
		for _, s := range o.Sources {
			if k[len(store.NSPosting)] == kinds[s] {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// EarlierCandidates calls fn, for every stored document, with the ids of
// the documents Add would verify for it under o's candidate settings
// (Sources, StructureRadius, StructureGate, MinShared, MaxPostings,
// MaxCandidates) among the documents stored before it: candidate
// gathering replayed over the final store, to compare candidate settings
// on one index without building it again. It differs from the real run
// only where a posting list filled up (became a stop list) after the
// document was added. o's other fields are not used.
func (f *Filter) EarlierCandidates(o Options, fn func(id string, cands []string) error) error {
	if err := o.validate(); err != nil {
		return err
	}
	g := &Filter{backend: f.backend, opts: o}
	return f.backend.Read(func(st store.Txn) error {
		return eachDoc(st, func(id string, _ *store.Record, sig similarity.Signature) error {
			rec, err := st.Record(id, true)
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			pg := &page{sig: sig, lookup: o.restrictLookup(o.lookupKeys(sig.Structure(), o.keysOf(rec, sig)))}
			ids, err := newPlanned(g, st).candidateIDs(pg, rec.Seq)
			if err != nil {
				return err
			}
			return fn(id, ids)
		})
	})
}

// candidateIDs returns the ids of p's candidates among the documents
// numbered below before (0: all), in the order they are verified.
func (pl *planned) candidateIDs(p *page, before uint64) ([]string, error) {
	lists, err := pl.st.Postings(p.lookup)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: %w", err)
	}
	cands, err := pl.candidates([]*page{p}, before, func(*page) []store.PostingList { return lists })
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cands[0]))
	for _, c := range cands[0] {
		if s := pl.sigs[c.seq]; s != nil {
			ids = append(ids, s.id)
		}
	}
	return ids, nil
}
