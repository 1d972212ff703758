package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
)

// similarIndex is an Index that answers similarity queries itself (an
// *indexer.Index); for another the server asks its Filter.
type similarIndex interface {
	Similar(ctx context.Context, r indexer.SimilarRequest) ([]dedupfilter.Similar, error)
}

// similarResponse is the body of /api/similar.
type similarResponse struct {
	ID string `json:"id"`
	// Title is the document's, when the store has its record.
	Title   string        `json:"title"`
	K       int           `json:"k"`
	TookMS  float64       `json:"took_ms"`
	Similar []similarPage `json:"similar"`
}

// similarPage is one similar document with the filter's evidence.
type similarPage struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Site    string `json:"site"`
	Cluster string `json:"cluster"`
	Indexed bool   `json:"indexed"`
	// Grade is "copy", "rewritten" or "related" (dedupfilter.Grade).
	Grade       string                  `json:"grade"`
	Score       float64                 `json:"score"`
	SameCluster bool                    `json:"same_cluster"`
	Lists       dedupfilter.SharedLists `json:"lists"`
	// Holds is the share of the page's distinct terms this document
	// holds, Held the share of its own the page holds; Numbers the share
	// of the numbers of the one with fewer that the other has.
	Holds    float64  `json:"holds"`
	Held     float64  `json:"held"`
	Numbers  float64  `json:"numbers"`
	Evidence *verdict `json:"evidence"`
}

// maxSimilarBody bounds the body of POST /api/similar: a page's text.
const maxSimilarBody = 4 << 20

// similarText is the body of POST /api/similar: a page the index need
// not hold.
type similarText struct {
	// Text is the page's main text, paragraphs apart by blank lines or
	// line breaks.
	Text string `json:"text"`
	URL  string `json:"url"`
	K    int    `json:"k"`
}

// similar serves GET /api/similar?id=ID[&k=10], the documents most
// similar to a stored one, and POST /api/similar with a similarText,
// those most similar to a text: by the filter's evidence, copies first
// (see indexer.Index.Similar).
func (s *Server) similar(w http.ResponseWriter, r *http.Request) error {
	var id string
	var req indexer.SimilarRequest
	var err error
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if id, err = stringParam(r, "id"); err != nil {
			return err
		}
		if req.K, err = intParam(r, "k", dedupfilter.DefaultSimilarK, 1, s.opts.MaxPageSize); err != nil {
			return err
		}
		req.ID = id
	case http.MethodPost:
		var body similarText
		if err := decodeBody(r, &body, maxSimilarBody); err != nil {
			return err
		}
		if body.K == 0 {
			body.K = dedupfilter.DefaultSimilarK
		}
		if body.K < 1 || body.K > s.opts.MaxPageSize {
			return badRequest("k %d: want 1 to %d", body.K, s.opts.MaxPageSize)
		}
		req = indexer.SimilarRequest{Paragraphs: indexer.Paragraphs(body.Text), URL: body.URL, K: body.K}
		if len(req.Paragraphs) == 0 {
			return badRequest("text: empty")
		}
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		return &httpError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " not allowed"}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.SearchTimeout)
	defer cancel()
	start := time.Now()
	var found []dedupfilter.Similar
	switch si, ok := s.ix.(similarIndex); {
	case ok:
		found, err = si.Similar(ctx, req)
	case id == "":
		return &httpError{status: http.StatusNotImplemented, msg: "this index finds pages similar to its own documents only"}
	default:
		found, err = s.ix.Filter().SimilarTo(id, dedupfilter.SimilarOptions{K: req.K})
	}
	switch {
	case errors.Is(err, dedupfilter.ErrNotFound):
		return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no document %q", id)}
	case errors.Is(err, context.DeadlineExceeded):
		return &httpError{status: http.StatusServiceUnavailable, msg: "similarity query timed out"}
	case err != nil:
		return err
	}
	o := s.ix.Filter().Options().Options
	out := similarResponse{ID: id, K: req.K, Similar: make([]similarPage, len(found))}
	if e, err := s.ix.Filter().Meta(id); id != "" && err == nil {
		out.Title = e.Title
	}
	for i, f := range found {
		v := f.Verdict
		out.Similar[i] = similarPage{ID: f.ID, URL: f.URL, Title: f.Title, Site: site(f.URL), Cluster: f.Cluster,
			Indexed: f.Indexed, Grade: string(f.Grade), Score: f.Score, SameCluster: f.SameCluster, Lists: f.Lists,
			Holds: v.InB, Held: v.InA, Numbers: v.Numbers, Evidence: toVerdict(v, o)}
	}
	out.TookMS = float64(time.Since(start).Microseconds()) / 1000
	writeJSON(w, http.StatusOK, out)
	return nil
}
