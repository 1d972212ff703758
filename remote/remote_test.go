package remote_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/boolquery"
	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/testkit/testindex"
	"github.com/bleve-dedup/bleve-dedup/page"
	"github.com/bleve-dedup/bleve-dedup/remote"
	"github.com/bleve-dedup/bleve-dedup/server"
)

// TestClient: pages sent through a Client are decided as the server's
// index decides them; its clusters and searches are the index's own; a
// refusal is ErrServer with the server's message.
func TestClient(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	ix, srv := testindex.IngestServer(t, func(in *server.Ingest) { in.Token = token })
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx := context.Background()
	c, err := remote.New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	pages := page.Read([]string{testindex.PagesDir(t)}, page.DefaultOptions())
	if _, err := c.Ingest(ctx, pages, func(err error) { t.Error(err) }); !errors.Is(err, remote.ErrServer) {
		t.Fatalf("ingest without the token: %v, want ErrServer", err)
	}
	c.Token = token
	sum, err := c.Ingest(ctx, pages, func(err error) { t.Error(err) })
	if err != nil || sum.Read != 15 || sum.Indexed != 9 || sum.Duplicates != 6 {
		t.Fatalf("ingest: %+v, %v; want 15 read, 9 indexed, 6 duplicates", sum, err)
	}

	var got, want []remote.ClusterInfo
	if err := c.Clusters(ctx, 2, func(ci remote.ClusterInfo) error { got = append(got, ci); return nil }); err != nil {
		t.Fatal(err)
	}
	err = ix.Filter().Clusters(func(cl dedupfilter.Cluster) error {
		if len(cl.Members) >= 2 {
			want = append(want, remote.ClusterInfo{ID: cl.ID, Representative: cl.Representative, Members: cl.Members})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, want, func(a, b remote.ClusterInfo) bool {
		return a.ID == b.ID && a.Representative == b.Representative && slices.Equal(a.Members, b.Members)
	}) || len(got) == 0 {
		t.Errorf("clusters through the client:\n%v\nwant the index's:\n%v", got, want)
	}

	for _, uncollapsed := range []bool{false, true} {
		res, err := c.Search(ctx, remote.Query{Q: "library", Size: 10, Uncollapsed: uncollapsed})
		if err != nil {
			t.Fatal(err)
		}
		q, err := boolquery.Query("library", boolquery.Options{Fields: []string{indexer.FieldTitle, indexer.FieldText}})
		if err != nil {
			t.Fatal(err)
		}
		local, err := collapse.New(ix.Unwrap(), ix.Filter()).Search(ctx, collapse.Request{Query: q, Size: 10, Collapse: !uncollapsed})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != local.Total || len(res.Hits) != len(local.Hits) || len(res.Hits) == 0 {
			t.Errorf("search (uncollapsed %v) through the client: total %d, %d hits; want %d, %d", uncollapsed, res.Total, len(res.Hits), local.Total, len(local.Hits))
		}
	}

	if _, err := remote.New("ftp://example.com"); err == nil {
		t.Error("NewClient took an ftp URL")
	}
}
