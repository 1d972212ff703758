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

// candidates gathers the stored documents from the posting lists under
// lookup (skipping stop lists), keeps those sharing at least MinShared
// lists and, with StructureGate, lying in a neighbouring structure cell,
// and returns at most MaxCandidates of them, most shared lists first, then
// the oldest. Documents numbered in skip are not candidates.
func (w *mutation) candidates(skip map[uint64]bool, sig similarity.Signature, lookup [][]byte) ([]cand, error) {
	return w.candidatesBefore(skip, sig, lookup, 0)
}

// candidatesBefore is candidates among the documents numbered below
// before (0: all).
func (w *mutation) candidatesBefore(skip map[uint64]bool, sig similarity.Signature, lookup [][]byte, before uint64) ([]cand, error) {
	o := w.f.opts
	ls, err := w.cached(lookup)
	if err != nil {
		return nil, err
	}
	lists := make([]store.PostingList, len(ls))
	for i, l := range ls {
		lists[i] = l.PostingList
	}
	cands := ranked(lists, skip, before, o, w.hits)
	if o.StructureGate >= 0 {
		if cands, err = w.gate(cands, sig); err != nil {
			return nil, err
		}
	}
	if len(cands) > o.MaxCandidates {
		cands = cands[:o.MaxCandidates]
	}
	return cands, nil
}

// ranked returns the documents in lists (stop lists skipped) sharing at
// least MinShared of them, not in skip and, if before > 0, numbered below
// it: most shared lists first, then the oldest. Without StructureGate at
// most MaxCandidates; the gate cuts after it has kept them. hits is
// scratch space, cleared first: a decision counts some thousands of
// postings, and a new map for each was a fifth of the filter's garbage.
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

// gate keeps the candidates whose structure cell lies within
// StructureGate of sig's in every coordinate (the feature-string paper,
// §3.2: a new feature string is compared only with those in its
// neighbourhood of the 3-D hash). It reads each candidate's signature,
// stopping once MaxCandidates are kept.
func (w *mutation) gate(cands []cand, sig similarity.Signature) ([]cand, error) {
	r, most := w.f.opts.StructureGate, w.f.opts.MaxCandidates
	kept := cands[:0] // (kept never passes the candidate being read)
	for i := 0; i < len(cands) && len(kept) < most; i += most {
		// Signatures are read MaxCandidates at once (one round trip on a
		// shared store).
		chunk := cands[i:min(i+most, len(cands))]
		seqs := make([]uint64, len(chunk))
		for j, c := range chunk {
			seqs[j] = c.seq
		}
		if err := w.st.Prefetch(store.Reads{Seqs: seqs}); err != nil {
			return nil, fmt.Errorf("dedupfilter: %w", err)
		}
		for _, c := range chunk {
			if len(kept) == most {
				break
			}
			_, cs, err := readSignature(w.st, c.seq)
			if err != nil {
				return nil, fmt.Errorf("dedupfilter: %w", err)
			}
			if sameCell(sig.Structure(), cs.Structure(), r) {
				kept = append(kept, c)
			}
		}
	}
	return kept, nil
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

// Candidates returns the ids of the stored documents Add would verify for
// p, in the order it would verify them, without adding p: how well the
// candidate sources (Options.Sources, StructureGate...) narrow the
// comparisons can be measured with it.
func (f *Filter) Candidates(p *Prepared) ([]string, error) {
	var ids []string
	err := f.backend.Read(func(st store.Txn) error {
		w := &mutation{f: f, st: st, lists: map[string]*cachedList{}, hits: map[uint64]int{}} // (without the lock: not f's scratch map)
		skip := map[uint64]bool{}
		if old, err := st.Record(p.doc.ID, false); err == nil {
			skip[old.Seq] = true
		}
		cands, err := w.candidates(skip, p.sig, p.lookup)
		if err != nil {
			return err
		}
		for _, c := range cands {
			id, _, err := readSignature(st, c.seq)
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
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
		w := &mutation{f: g, st: st, lists: map[string]*cachedList{}, hits: map[uint64]int{}}
		return eachDoc(st, func(id string, _ *store.Record, sig similarity.Signature) error {
			rec, err := st.Record(id, true)
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
			keys := rec.Keys
			if keys == nil { // a store that keeps none
				keys = o.postingKeys(sig, nil)
			}
			lookup := o.restrictLookup(o.lookupKeys(sig.Structure(), keys))
			cands, err := w.candidatesBefore(nil, sig, lookup, rec.Seq)
			if err != nil {
				return err
			}
			ids := make([]string, len(cands))
			for i, c := range cands {
				if ids[i], _, err = readSignature(st, c.seq); err != nil {
					return fmt.Errorf("dedupfilter: %w", err)
				}
			}
			clear(w.lists) // one document's lists at a time
			return fn(id, ids)
		})
	})
}
