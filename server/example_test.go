package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"

	"github.com/bleve-dedup/bleve-dedup/collapse"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/server"
)

func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	o := indexer.Options{}
	o.Policy = dedupfilter.Mark
	ix, err := indexer.Open(dir, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ix.Close()
	story := []string{"The city library opens its doors at night for students preparing exams this winter.",
		"Volunteers keep the reading rooms open until midnight, and the lamps stay lit for everyone."}
	ix.Index("a", indexer.Document{Title: "Night library", Paragraphs: story})
	ix.Index("b", indexer.Document{Title: "Night library (reprint)", Paragraphs: story})

	s, err := server.New(ix, server.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close() // before ix.Close: it stops the server's work in the background
	// In a program: ln, err := net.Listen("tcp", "127.0.0.1:8080"), then
	// s.Serve(ctx, ln) until ctx is done.
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/api/search?q=library+AND+midnight")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var body struct {
		Clusters int
		Hits     []collapse.Hit
	}
	json.NewDecoder(resp.Body).Decode(&body)
	fmt.Println(resp.StatusCode, body.Clusters, "cluster")
	for _, h := range body.Hits {
		fmt.Println(h.ID, "folds", h.Folded, "similar page:", h.Members[0].ID)
	}
	// Output:
	// 200 1 cluster
	// a folds 1 similar page: b
}
