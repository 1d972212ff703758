package dedupfilter

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Grade says how much of a page a similar page shares, by the filter's
// own evidence (see Similar).
type Grade string

// The grades, from the most shared to the least.
const (
	// GradeCopy: the filter takes the pages for copies of one page: the
	// pair passes its near-duplicate test under its options (what Add
	// would cluster), or the filter put them in one cluster.
	GradeCopy Grade = "copy"
	// GradeRewritten: the same content below the copy thresholds, a story
	// rewritten or a page quoting much of the other: each page holds
	// RewrittenHeldMin of the other's distinct terms, or the MinHash or
	// block measure alone calls the pair duplicates and each holds HeldMin;
	// and the page with fewer numbers shares NumbersMin of them with the
	// other (a page written from the other's template swaps its facts).
	// The feature strings alone do not count: they agree on pages of one
	// template whose punctuation falls alike.
	GradeRewritten Grade = "rewritten"
	// GradeRelated: the pages share some features (a MinHash band, a
	// block fingerprint, a feature-string piece or a term the store posts)
	// and nothing more of the above.
	GradeRelated Grade = "related"
)

// RewrittenHeldMin is the share of each other's distinct terms two
// pages hold at least to be graded GradeRewritten on their terms alone.
// On the development set, templated pages of one kind (species stubs of
// one genus, press releases of one agency) hold up to 0.58 of each
// other's terms, rewrites of a story 0.6 and more.
const RewrittenHeldMin = 0.6

// rank orders the grades, copies first.
func (g Grade) rank() int {
	switch g {
	case GradeCopy:
		return 0
	case GradeRewritten:
		return 1
	}
	return 2
}

// Similarity defaults.
const (
	// DefaultSimilarK is how many similar documents SimilarTo returns
	// when SimilarOptions.K is 0.
	DefaultSimilarK = 10
	// DefaultSimilarCandidates bounds the documents a similarity query
	// reads and compares (SimilarOptions.Candidates).
	DefaultSimilarCandidates = 100
	// MaxSimilarCandidates is the most SimilarOptions.Candidates may be.
	MaxSimilarCandidates = 2000
)

// SimilarOptions bound a similarity query.
type SimilarOptions struct {
	// K is how many similar documents to return; 0 means
	// DefaultSimilarK.
	K int
	// Candidates is how many documents, those sharing the most posting
	// lists, are read and compared with the page; 0 means
	// DefaultSimilarCandidates, and it is never below K. The members of
	// the page's own cluster count apart, up to as many. It bounds the
	// query's cost whatever the store's size, as MaxCandidates bounds a
	// decision's.
	Candidates int
}

func (o SimilarOptions) resolve() (SimilarOptions, error) {
	if o.K < 0 || o.Candidates < 0 || o.K > MaxSimilarCandidates || o.Candidates > MaxSimilarCandidates {
		return o, fmt.Errorf("dedupfilter: similar: K %d and Candidates %d must lie in 0..%d: %w", o.K, o.Candidates, MaxSimilarCandidates, ErrInvalidOptions)
	}
	o.K = cmp.Or(o.K, DefaultSimilarK)
	o.Candidates = max(cmp.Or(o.Candidates, DefaultSimilarCandidates), o.K)
	return o, nil
}

// SharedLists counts the posting lists two documents are both on, by
// kind: the first evidence a similarity query reads.
type SharedLists struct {
	Bands  int `json:"bands"`  // MinHash LSH bands
	Blocks int `json:"blocks"` // block fingerprints (the fingerprint paper)
	Pieces int `json:"pieces"` // sampled feature-string pieces (the feature-string paper)
	Terms  int `json:"terms"`  // sampled terms (Options.TermsPerDoc)
}

// Total is the number of lists shared.
func (s SharedLists) Total() int { return s.Bands + s.Blocks + s.Pieces + s.Terms }

func (s *SharedLists) add(kind byte) {
	switch kind {
	case kindBand:
		s.Bands++
	case kindBlock:
		s.Blocks++
	case kindPiece:
		s.Pieces++
	case kindTerm:
		s.Terms++
	}
}

// Similar is a stored document similar to a page, with the filter's
// evidence.
type Similar struct {
	// Entry is the document's Meta (no payload).
	Entry
	Grade Grade
	// Score orders documents of one grade: the mean of the feature-string,
	// MinHash, block and term-Jaccard similarities, each in [0, 1].
	Score float64
	// Lists are the posting lists it shares with the page.
	Lists SharedLists
	// SameCluster: the filter put it in the page's cluster.
	SameCluster bool
	// Verdict is the comparison the filter makes of the pair (the page
	// first), from the stored signatures; its TermSample names shared
	// terms only for a query by features (SimilarToFeatures): stored
	// signatures keep terms as hashes.
	Verdict similarity.Verdict
}

// SimilarTo returns the stored documents most similar to stored document
// id (itself left out), at most o.K, copies first, each grade by Score;
// ErrNotFound when id is not stored. It reads the posting lists of id's
// own keys, not the whole store: it compares at most o.Candidates
// documents sharing the most lists with it (lists longer than
// MaxPostings, the store's stop lists, are not read) and as many members
// of its cluster: its reads are bounded whatever the store's size (each
// read costs a little more in a larger store).
func (f *Filter) SimilarTo(id string, o SimilarOptions) ([]Similar, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	var out []Similar
	err = f.backend.Read(func(st store.Txn) error {
		rec, err := st.Record(id, true)
		if err != nil {
			return fmt.Errorf("dedupfilter: similar to %q: %w", id, err)
		}
		_, sig, err := readSignature(st, rec.Seq)
		if err != nil {
			return fmt.Errorf("dedupfilter: similar to %q: %w", id, err)
		}
		keys := f.opts.keysOf(rec, sig)
		members, err := st.Members(rec.Cluster)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("dedupfilter: cluster of %q: %w", id, err)
		}
		out, err = f.similar(st, sig, keys, query{seq: rec.Seq, cluster: rec.Cluster, members: members}, o)
		return err
	})
	return out, err
}

// SimilarToFeatures is SimilarTo for a page that need not be stored: its
// features, as the analyzer computed them, and its URL (for SameURL;
// may be empty). Its cluster is none, so no document is SameCluster.
func (f *Filter) SimilarToFeatures(feat *analyzer.Features, pageURL string, o SimilarOptions) ([]Similar, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	if feat == nil {
		return nil, fmt.Errorf("dedupfilter: similar: no features: %w", ErrInvalidDocument)
	}
	sig := similarity.Of(feat, pageURL, f.opts.Options).WithPieceSample(f.opts.PiecesPerDoc)
	keys := f.opts.postingKeys(sig, feat.Terms)
	var out []Similar
	err = f.backend.Read(func(st store.Txn) error {
		var err error
		out, err = f.similar(st, sig, keys, query{}, o)
		return err
	})
	return out, err
}

// query is the page a similarity query is for, when it is stored: its
// sequence number, cluster and the cluster's members.
type query struct {
	seq     uint64
	cluster string
	members []string
}

// found is a document compared while answering a query.
type found struct {
	Similar
	seq uint64
	sig similarity.Signature
	// read: its record was read (Entry is whole).
	read bool
}

// similar finds, compares and grades the documents sharing keys' lists
// with sig. The structure cell is no evidence of shared content (any two
// pages of a like length and shape share one) and is not read.
// Candidates are compared from their signatures alone; records are read
// for the documents returned: two reads of a hundred candidates were
// half a query's time in a store of 100,000 pages.
func (f *Filter) similar(st store.Txn, sig similarity.Signature, keys [][]byte, q query, o SimilarOptions) ([]Similar, error) {
	var lookup [][]byte
	for _, k := range keys {
		if store.PostingKind(k) != kindStructure && !slices.ContainsFunc(lookup, func(x []byte) bool { return string(x) == string(k) }) {
			lookup = append(lookup, k)
		}
	}
	lists, err := st.Postings(lookup)
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: similar: %w", err)
	}
	shared := map[uint64]*SharedLists{}
	for i, l := range lists {
		if l.Full || len(l.Seqs) > f.opts.MaxPostings {
			continue // a stop list: shared by too many to tell anything
		}
		kind := store.PostingKind(lookup[i])
		for _, s := range l.Seqs {
			if s == q.seq && q.seq != 0 {
				continue
			}
			c := shared[s]
			if c == nil {
				c = &SharedLists{}
				shared[s] = c
			}
			c.add(kind)
		}
	}
	type cand struct {
		seq   uint64
		lists SharedLists
	}
	cands := make([]cand, 0, len(shared))
	for s, c := range shared {
		cands = append(cands, cand{s, *c})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(b.lists.Total()-a.lists.Total(), cmp.Compare(a.seq, b.seq))
	})
	cands = cands[:min(len(cands), o.Candidates)]

	seqs := make([]uint64, len(cands))
	for i, c := range cands {
		seqs[i] = c.seq
	}
	members := q.members[:min(len(q.members), o.Candidates+1)]
	if err := st.Prefetch(store.Reads{Seqs: seqs, IDs: members}); err != nil {
		return nil, fmt.Errorf("dedupfilter: similar: %w", err)
	}
	inCluster := make(map[string]bool, len(q.members))
	for _, m := range q.members {
		inCluster[m] = true
	}
	out := make([]found, 0, len(cands)+len(members))
	seen := map[string]bool{}
	// compare grades one candidate. Verify, not Compare: the term sample
	// is looked up for the documents returned only.
	compare := func(fd found) {
		v := similarity.Verify(sig, fd.sig, f.opts.Options)
		same := q.cluster != "" && inCluster[fd.ID]
		fd.Grade, fd.Score, fd.SameCluster, fd.Verdict = f.grade(v, same), scoreOf(v), same, v
		out = append(out, fd)
		seen[fd.ID] = true
	}
	for _, c := range cands {
		sd, err := readStored(st, c.seq)
		if errors.Is(err, ErrNotFound) {
			continue // removed since it was posted
		}
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: similar: %w", err)
		}
		compare(found{Similar: Similar{Entry: Entry{Doc: Doc{ID: sd.id}}, Lists: c.lists}, seq: c.seq, sig: sd.sig})
	}
	// The page's cluster: copies the filter found, some perhaps through
	// a copy between (copies of copies) and on no list of the page's.
	for _, m := range members {
		if seen[m] || m == "" {
			continue
		}
		e, err := meta(st, m)
		if errors.Is(err, ErrNotFound) || err == nil && e.Seq == q.seq {
			continue
		}
		if err != nil {
			return nil, err
		}
		_, other, err := readSignature(st, e.Seq)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("dedupfilter: similar: %w", err)
		}
		compare(found{Similar: Similar{Entry: e}, seq: e.Seq, sig: other, read: true})
	}
	slices.SortFunc(out, func(a, b found) int {
		return cmp.Or(a.Grade.rank()-b.Grade.rank(), cmp.Compare(b.Score, a.Score),
			b.Lists.Total()-a.Lists.Total(), cmp.Compare(a.ID, b.ID))
	})
	// The records of the best, in one round trip on a shared store; one
	// whose record is of another version (re-added since), or missing
	// (not decided yet, on a shared store), gives its place to the next.
	var ids []string
	for _, fd := range out[:min(len(out), o.K+o.K/2+1)] {
		ids = append(ids, fd.ID)
	}
	if err := st.Prefetch(store.Reads{IDs: ids}); err != nil {
		return nil, fmt.Errorf("dedupfilter: similar: %w", err)
	}
	res := make([]Similar, 0, o.K)
	for _, fd := range out {
		if len(res) == o.K {
			break
		}
		if !fd.read {
			e, err := meta(st, fd.ID)
			if errors.Is(err, ErrNotFound) || err == nil && e.Seq != fd.seq {
				continue
			}
			if err != nil {
				return nil, err
			}
			fd.Entry = e
		}
		fd.Verdict.TermSample = similarity.TermSample(sig, fd.sig, f.opts.Options)
		res = append(res, fd.Similar)
	}
	return res, nil
}

// grade grades a pair from its verdict (see the Grade constants).
func (f *Filter) grade(v similarity.Verdict, sameCluster bool) Grade {
	o := f.opts.Options
	held := min(v.InB, v.InA)
	inOrder := false
	for _, m := range []similarity.Measure{similarity.MinHash, similarity.Blocks} {
		if s, _ := v.Score(m); s.Duplicate {
			inOrder = true
		}
	}
	switch {
	case v.Duplicate || sameCluster:
		return GradeCopy
	case (held >= RewrittenHeldMin || inOrder && held >= o.HeldMin) && v.Numbers >= o.NumbersMin:
		return GradeRewritten
	}
	return GradeRelated
}

// scoreOf is Similar.Score.
func scoreOf(v similarity.Verdict) float64 {
	var sum float64
	for _, m := range []similarity.Measure{similarity.FeatureString, similarity.MinHash, similarity.Blocks, similarity.Jaccard} {
		s, _ := v.Score(m)
		sum += s.Value
	}
	return sum / 4
}
