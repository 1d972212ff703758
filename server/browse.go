package server

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/align"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/similarity"
)

// document is the body of /api/doc: a stored document with its text.
type document struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Cluster string `json:"cluster"`
	Indexed bool   `json:"indexed"`
	Site    string `json:"site"`
	// Chars is the length of the main text in characters.
	Chars int    `json:"chars"`
	Text  string `json:"text,omitempty"`
}

// loadDoc reads id from the dedup store, text from its payload.
func (s *Server) loadDoc(id string) (document, error) {
	e, err := s.ix.Doc(id)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return document{}, &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no document %q", id)}
	}
	if err != nil {
		return document{}, err
	}
	text, err := payloadText(e.Payload, len(e.Payload))
	if err != nil {
		return document{}, fmt.Errorf("document %q: %w", id, err)
	}
	return document{ID: id, URL: e.URL, Title: e.Title, Cluster: e.Cluster, Indexed: e.Indexed,
		Site: site(e.URL), Chars: utf8.RuneCountInString(text), Text: text}, nil
}

// verdict is a comparison's verdict as "bleve-dedup compare --format
// json" prints it (similarity.Verdict).
type verdict struct {
	Duplicate    bool     `json:"duplicate"`
	Measure      string   `json:"measure"`
	Similarity   float64  `json:"similarity"`
	Votes        int      `json:"votes"`
	Scores       []score  `json:"scores"`
	SharedPieces int      `json:"shared_pieces"`
	SharedBlocks int      `json:"shared_blocks"`
	SharedTerms  int      `json:"shared_terms"`
	TermSample   []string `json:"term_sample"`
}

type score struct {
	Measure   string  `json:"measure"`
	Value     float64 `json:"value"`
	Duplicate bool    `json:"duplicate"`
	// Decides: the measure votes or decides under the index's options.
	// The others' inputs (character frequencies, tag sequences, URLs)
	// are not kept in the stored signatures, so they score 0 here where
	// "bleve-dedup compare", which reads the pages, scores them.
	Decides bool `json:"decides"`
	// Threshold is the value at which the measure says duplicate under
	// the index's options, or above which when Strict; Unit is what Value
	// and Threshold measure: "share" (0 to 1) or, for Pugh, "terms" (a
	// count of distinct terms in common, not a share). Condition is what
	// the measure asks besides, if anything.
	Threshold float64 `json:"threshold"`
	Strict    bool    `json:"strict,omitempty"`
	Unit      string  `json:"unit"`
	Condition string  `json:"condition,omitempty"`
}

// Units of a score.
const (
	unitShare = "share"
	unitTerms = "terms"
)

// withThreshold returns sc with the threshold of its measure under o, as
// similarity.Verify applies it.
func withThreshold(sc score, m similarity.Measure, o similarity.Options) score {
	sc.Unit = unitShare
	switch m {
	case similarity.FeatureString:
		sc.Threshold = o.FeatureStringMin
	case similarity.MinHash:
		sc.Threshold = o.MinHashMin
	case similarity.Blocks:
		sc.Threshold = o.BlocksMin
	case similarity.Boolean:
		sc.Threshold = o.BooleanMin
		sc.Condition = fmt.Sprintf("feature counts within %g%% and at most %g%% of the features differing",
			o.BooleanD*100, o.BooleanK*100)
	case similarity.Jaccard:
		sc.Threshold = o.JaccardMin
	case similarity.Conrad:
		sc.Threshold, sc.Strict = o.ConradShared, true
		sc.Condition = fmt.Sprintf("lengths within ±%g%%", o.ConradLength*100)
	case similarity.Pugh:
		sc.Threshold, sc.Strict, sc.Unit = float64(o.PughR), true, unitTerms
	case similarity.Containment:
		sc.Threshold = o.ContainmentMin
	case similarity.CharFreq:
		sc.Threshold = o.CharFreqMin
	case similarity.TagEdit:
		sc.Threshold = o.TagEditMin
	case similarity.SameURL:
		sc.Threshold = 1
		sc.Condition = "the canonical URLs are equal"
	}
	return sc
}

func toVerdict(v similarity.Verdict, o similarity.Options) *verdict {
	out := &verdict{Duplicate: v.Duplicate, Measure: v.Measure.String(), Similarity: v.Similarity, Votes: v.Votes,
		Scores: make([]score, len(v.Scores)), SharedPieces: v.SharedPieces, SharedBlocks: v.SharedBlocks,
		SharedTerms: v.SharedTerms, TermSample: v.TermSample}
	for i, sc := range v.Scores {
		out.Scores[i] = withThreshold(score{Measure: sc.Measure.String(), Value: sc.Value, Duplicate: sc.Duplicate,
			Decides: o.Decides(sc.Measure)}, sc.Measure, o)
	}
	if out.TermSample == nil {
		out.TermSample = []string{}
	}
	return out
}

// compareStored is the filter's verdict on a and b, from their stored
// signatures: what "bleve-dedup compare" says of the two pages.
func (s *Server) compareStored(a, b string) (*verdict, error) {
	v, err := s.ix.Filter().CompareStored(a, b)
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return nil, nil // stored by another process of a shared store: no signature here
	}
	if err != nil {
		return nil, err
	}
	return toVerdict(v, s.ix.Filter().Options().Options), nil
}

// docPage is the body of /api/doc: the document, its cluster and its
// nearest copies.
type docPage struct {
	document
	ClusterSize    int    `json:"cluster_size"`
	Representative string `json:"representative"`
	// Nearest are up to nearestShown other members of the cluster, the
	// most similar first, each with the filter's verdict.
	Nearest []member `json:"nearest"`
}

// nearestShown is how many copies a document page lists.
const nearestShown = 10

// doc serves GET /api/doc?id=ID.
func (s *Server) doc(w http.ResponseWriter, r *http.Request) error {
	id, err := stringParam(r, "id")
	if err != nil {
		return err
	}
	d, err := s.loadDoc(id)
	if err != nil {
		return err
	}
	out := docPage{document: d, Nearest: []member{}}
	c, err := s.ix.Filter().ClusterOf(id)
	if err != nil && !errors.Is(err, dedupfilter.ErrNotFound) {
		return err
	}
	out.ClusterSize, out.Representative = len(c.Members), c.Representative
	others := slices.DeleteFunc(slices.Clone(c.Members), func(m string) bool { return m == id })
	others = others[:min(len(others), s.opts.MaxClusterMembers)]
	for _, m := range others {
		mem, err := s.member(m, id)
		if err != nil {
			return err
		}
		out.Nearest = append(out.Nearest, mem)
	}
	slices.SortStableFunc(out.Nearest, func(a, b member) int {
		return cmp.Compare(similarityOf(b.Evidence), similarityOf(a.Evidence))
	})
	out.Nearest = out.Nearest[:min(len(out.Nearest), nearestShown)]
	writeJSON(w, http.StatusOK, out)
	return nil
}

func similarityOf(v *verdict) float64 {
	if v == nil {
		return -1
	}
	return v.Similarity
}

// member is a cluster member with the evidence that joins it to another
// document (the representative, on a cluster page).
type member struct {
	document
	Evidence *verdict `json:"evidence,omitempty"`
}

// member reads id without its text, with the verdict against other.
func (s *Server) member(id, other string) (member, error) {
	d, err := s.loadDoc(id)
	if err != nil {
		return member{}, err
	}
	d.Text = ""
	m := member{document: d}
	if id != other {
		if m.Evidence, err = s.compareStored(other, id); err != nil {
			return member{}, err
		}
	}
	return m, nil
}

// clusterSummary is a cluster in /api/clusters and the overview.
type clusterSummary struct {
	ID             string   `json:"id"`
	Representative string   `json:"representative"`
	Size           int      `json:"size"`
	Members        []string `json:"members,omitempty"`
	Title          string   `json:"title,omitempty"` // the representative's
	URL            string   `json:"url,omitempty"`
	// CopyTitle, for a representative without a title, is the title of
	// the first member that has one.
	CopyTitle string `json:"copy_title,omitempty"`
}

// clusters serves GET /api/clusters[?min=2][&from=0][&size=100], the
// clusters of at least min members in creation order, with their total
// (a walk of the whole store); or, with after=CLUSTER, the page after that
// cluster, without a total and with "next", the cursor of the page after
// it ("" at the end): paging through a large store that way costs time
// linear in what is read.
func (s *Server) clusters(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Has("after") {
		return s.clustersAfter(w, r)
	}
	minSize, size, err := s.clusterPage(r)
	if err != nil {
		return err
	}
	from, err := intParam(r, "from", 0, 0, 1<<30)
	if err != nil {
		return err
	}
	page := []clusterSummary{}
	total := 0
	err = s.ix.Filter().Clusters(func(c dedupfilter.Cluster) error {
		if len(c.Members) < minSize {
			return nil
		}
		if total >= from && len(page) < size {
			page = append(page, clusterSummary{ID: c.ID, Representative: c.Representative, Size: len(c.Members), Members: c.Members})
		}
		total++
		return r.Context().Err()
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "from": from, "clusters": page})
	return nil
}

// clusterPage reads the parameters both forms of /api/clusters take: the
// fewest members a cluster listed has, and how many a page lists.
func (s *Server) clusterPage(r *http.Request) (minSize, size int, err error) {
	if minSize, err = intParam(r, "min", 2, 1, 1<<30); err != nil {
		return 0, 0, err
	}
	size, err = intParam(r, "size", s.opts.MaxPageSize, 1, s.opts.MaxPageSize)
	return minSize, size, err
}

// errPageFull stops a walk once a page is full.
var errPageFull = errors.New("page full")

func (s *Server) clustersAfter(w http.ResponseWriter, r *http.Request) error {
	minSize, size, err := s.clusterPage(r)
	if err != nil {
		return err
	}
	page := []clusterSummary{}
	next := ""
	err = s.ix.Filter().ClustersAfter(r.URL.Query().Get("after"), func(c dedupfilter.Cluster) error {
		if len(c.Members) < minSize {
			return r.Context().Err()
		}
		if len(page) == size {
			next = page[len(page)-1].ID
			return errPageFull
		}
		page = append(page, clusterSummary{ID: c.ID, Representative: c.Representative, Size: len(c.Members), Members: c.Members})
		return r.Context().Err()
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"clusters": page, "next": next})
	return nil
}

// clusterDetail is the body of /api/cluster.
type clusterDetail struct {
	ID             string   `json:"id"`
	Representative string   `json:"representative"`
	Size           int      `json:"size"` // members, listed or not
	Members        []member `json:"members"`
	// TitledCopy, when the representative has no title, is the first
	// member that has one; RepresentativeNote says why it does not
	// represent the cluster.
	TitledCopy         string `json:"titled_copy,omitempty"`
	RepresentativeNote string `json:"representative_note,omitempty"`
	Policy             string `json:"policy"`
}

// cluster serves GET /api/cluster?id=CLUSTER, or ?doc=ID for the cluster
// of a document: up to MaxClusterMembers members (the representative
// first), without their text, each other member with the filter's
// verdict against the representative: the evidence that put them
// together.
func (s *Server) cluster(w http.ResponseWriter, r *http.Request) error {
	p := r.URL.Query()
	var c dedupfilter.Cluster
	var err error
	switch {
	case p.Get("id") != "":
		c, err = s.ix.Filter().Cluster(p.Get("id"))
	case p.Get("doc") != "":
		c, err = s.ix.Filter().ClusterOf(p.Get("doc"))
	default:
		return badRequest("missing parameter id or doc")
	}
	if errors.Is(err, dedupfilter.ErrNotFound) {
		return &httpError{status: http.StatusNotFound, msg: "no such cluster"}
	}
	if err != nil {
		return err
	}
	others := slices.DeleteFunc(slices.Clone(c.Members), func(id string) bool { return id == c.Representative })
	ids := append([]string{c.Representative}, others...)
	ids = ids[:min(len(ids), s.opts.MaxClusterMembers)]
	policy := s.ix.Filter().Options().Policy
	out := clusterDetail{ID: c.ID, Representative: c.Representative, Size: len(c.Members),
		Members: make([]member, 0, len(ids)), Policy: policy.String()}
	for _, id := range ids {
		m, err := s.member(id, c.Representative)
		if err != nil {
			return err
		}
		out.Members = append(out.Members, m)
		if out.Members[0].Title == "" && out.TitledCopy == "" && m.Title != "" {
			out.TitledCopy = m.ID
		}
	}
	if out.TitledCopy != "" {
		out.RepresentativeNote = representativeNote(policy, s.ix.Filter().Options().Keep)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// representativeNote says why a cluster whose representative has no
// title is not represented by a member that has one: the filter chooses
// representatives by its policy, not by title.
func representativeNote(p dedupfilter.Policy, k dedupfilter.Keep) string {
	switch p {
	case dedupfilter.Replace:
		return fmt.Sprintf("Under the replace policy the representative is the %s copy (keep=%s); titles do not count", k, k)
	case dedupfilter.Mark:
		return "Under the mark policy the representative is the first copy indexed; every copy is searchable, and a search shows the best-matching one"
	}
	return "Under the suppress policy the representative is the first copy indexed and the only one searchable; later copies never replace it"
}

// comparison is the body of /api/compare.
type comparison struct {
	A     document        `json:"a"`
	B     document        `json:"b"`
	Left  []align.Passage `json:"left"`
	Right []align.Passage `json:"right"`
	Stats align.Stats     `json:"stats"`
	// Verdict is the filter's, from the stored signatures; absent when
	// this process' store has no signature of one of them.
	Verdict *verdict `json:"verdict,omitempty"`
}

// compare serves GET /api/compare?a=ID&b=ID: both documents' text as
// passages whose words are marked shared with the other document or
// not (see Diff), and the filter's verdict on the pair.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) error {
	var docs [2]document
	for i, name := range []string{"a", "b"} {
		id, err := stringParam(r, name)
		if err != nil {
			return err
		}
		if docs[i], err = s.loadDoc(id); err != nil {
			return err
		}
	}
	v, err := s.compareStored(docs[0].ID, docs[1].ID)
	if err != nil {
		return err
	}
	left, right, stats := align.Diff(docs[0].Text, docs[1].Text, s.opts.MaxCompareSentences)
	docs[0].Text, docs[1].Text = "", ""
	writeJSON(w, http.StatusOK, comparison{A: docs[0], B: docs[1], Left: left, Right: right, Stats: stats, Verdict: v})
	return nil
}

// overview serves GET /api/overview: the index at a glance, from the
// catalog.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) error {
	c, err := s.catalog(r.Context(), true)
	if err != nil {
		return err
	}
	out := c.stats
	if t := s.lastIngest(); t.After(out.LastUpdate) {
		out.LastUpdate = t
	}
	if len(out.Examples) == 0 { // an empty index: the syntax at least
		out.Examples = syntaxExamples
	}
	out.CatalogAge = timeSince(c.made)
	writeJSON(w, http.StatusOK, out)
	return nil
}
