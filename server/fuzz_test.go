package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// drain is an ingester that reads the pages and keeps their ids and
// errors, indexing nothing.
type drain struct {
	ids  []string
	errs []error
}

func (d *drain) IndexPages(_ context.Context, pages iter.Seq2[page.Page, error], o indexer.RunOptions) (indexer.Stats, error) {
	d.ids, d.errs = nil, nil
	for p, err := range pages {
		if err != nil {
			d.errs = append(d.errs, err)
			o.OnError(err)
			continue
		}
		d.ids = append(d.ids, p.ID)
	}
	return indexer.Stats{Read: len(d.ids) + len(d.errs), Errors: len(d.errs)}, nil
}

// FuzzIngestBody posts arbitrary bodies as JSONL or WARC, gzipped by
// their header or not: the answer is a summary or an error the client
// can act on, never a failure of the server; every problem is a
// *page.Error; and a WARC body in which page.ReadWARC finds no problem
// yields the same pages read as a stream as read as a file.
func FuzzIngestBody(f *testing.F) {
	html := "<html><body><article><p>" + articleText("river") + "</p></article></body></html>"
	w1 := warcResponse("http://example.org/a", html)
	w2 := warcResponseOf("http://example.org/b.png", "image/png", "\x89PNG....")
	for _, seed := range []struct {
		body      []byte
		warc, enc bool
	}{
		{jsonlBody(`{"id":"a","text":"some text"}`, `{"id":"b","html":"<p>x</p>"}`, `{"id":""}`, `not json`), false, false},
		{gzipped(jsonlBody(`{"id":"a","text":"some text"}`)), false, true},
		{slices.Concat(w1, w2), true, false},
		{slices.Concat(gzipped(w1), gzipped(w2)), true, false},
		{gzipped(slices.Concat(w1, w2)), true, true},
		{slices.Concat(w1[:100], []byte("\r\n\r\n"), w2), true, false},
		{[]byte("WARC/1.0\r\nContent-Length: 99999999999\r\n\r\nx"), true, false},
		{[]byte("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x.example/\r\nContent-Type: text/html\r\nContent-Length: 4\r\n\r\n<p>x\r\n\r\n"), true, false},
	} {
		f.Add(seed.body, seed.warc, seed.enc)
	}
	ix, err := indexer.Open(f.TempDir(), indexer.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ix.Close() })
	d := &drain{}
	o := server.DefaultOptions()
	o.Ingest = server.DefaultIngest(d)
	o.Ingest.MaxBytes = 1 << 20
	o.Ingest.Pages.MaxBytes = 64 << 10
	s, err := server.New(ix, o)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, body []byte, warc, enc bool) {
		req := localRequest("POST", "/api/ingest", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-ndjson")
		if warc {
			req.Header.Set("Content-Type", "application/warc")
		}
		if enc {
			req.Header.Set("Content-Encoding", "gzip")
		}
		d.ids, d.errs = nil, nil
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusRequestEntityTooLarge:
			var sum server.IngestSummary
			if err := json.Unmarshal(rec.Body.Bytes(), &sum); err != nil || sum.Read != len(d.ids)+len(d.errs) || sum.Errors != len(d.errs) {
				t.Fatalf("summary %s (%v), for %d pages and %d errors", rec.Body, err, len(d.ids), len(d.errs))
			}
		case http.StatusBadRequest:
			if !strings.Contains(rec.Body.String(), `"error":"body: `) {
				t.Fatalf("400 %s: want an error about the body", rec.Body)
			}
		default:
			t.Fatalf("status %d %s", rec.Code, rec.Body)
		}
		for _, err := range d.errs {
			pe, ok := errors.AsType[*page.Error](err)
			if !ok || (warc && pe.Record < 1 && errors.Is(err, page.ErrCorrupt)) {
				t.Fatalf("error %v (%T): want a *page.Error, with its record when a WARC record is damaged", err, err)
			}
		}
		for _, id := range d.ids {
			if id == "" {
				t.Fatal("a page without an id")
			}
		}
		if !warc || enc || (len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b) || rec.Code != http.StatusOK {
			return
		}
		var want []string
		for p, err := range page.ReadWARC("body", bytes.NewReader(body), int64(len(body)), o.Ingest.Pages) {
			if err != nil {
				return // damaged: the two readers may resynchronise differently
			}
			want = append(want, p.ID)
		}
		// The stream reader may report what the file reader passes over in
		// silence (a body of "W"), but it yields the same pages.
		if !slices.Equal(d.ids, want) {
			t.Fatalf("pages read as a stream %q, errors %v; as a file %q", d.ids, d.errs, want)
		}
	})
}
