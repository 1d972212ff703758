package testweb

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func synthetic(n int) []Doc {
	var docs []Doc
	for i := range n {
		d := Doc{ID: fmt.Sprintf("d%d", i), Title: fmt.Sprintf("Doc %d", i), Body: "First paragraph.\nSecond paragraph.\nThird.", Lang: "en"}
		if i%5 == 0 {
			d.Topic = "t"
		}
		docs = append(docs, d)
	}
	return docs
}

func TestBuildDeterministic(t *testing.T) {
	a := Build(synthetic(100), Options{Seed: 9, Hostile: true})
	b := Build(synthetic(100), Options{Seed: 9, Hostile: true})
	if !reflect.DeepEqual(a.Pages, b.Pages) || !reflect.DeepEqual(a.home, b.home) {
		t.Error("two webs from one seed differ")
	}
	c := Build(synthetic(100), Options{Seed: 10})
	if reflect.DeepEqual(a.Pages, c.Pages) {
		t.Error("webs from different seeds are equal")
	}
}

func TestHomophily(t *testing.T) {
	w := Build(synthetic(500), Options{Seed: 1, Decorate: -1})
	var fromTopic, toTopic, fromOther, otherToTopic int
	for _, p := range w.Pages {
		for _, l := range p.Links {
			target := w.Page(l)
			if target == nil {
				continue
			}
			if p.Topic != "" {
				fromTopic++
				if target.Topic != "" {
					toTopic++
				}
			} else {
				fromOther++
				if target.Topic != "" {
					otherToTopic++
				}
			}
		}
	}
	share, base := float64(toTopic)/float64(fromTopic), float64(otherToTopic)/float64(fromOther)
	if share <= 0.5 || share <= 2*base {
		t.Errorf("topical pages link to topical pages %.2f of the time, others %.2f; want > 0.5 and well above", share, base)
	}
}

func TestMirrors(t *testing.T) {
	w := Build(synthetic(50), Options{Seed: 2, Duplicates: 10})
	n := 0
	for _, p := range w.Pages {
		if p.DupOf == "" {
			continue
		}
		n++
		orig := w.Page(p.DupOf)
		if orig == nil || orig.Title != p.Title || len(p.Paragraphs) != len(orig.Paragraphs) || p.Paragraphs[1] != orig.Paragraphs[0] {
			t.Errorf("mirror %s is not a reprint of %s", p.Path, p.DupOf)
		}
	}
	if n == 0 {
		t.Error("no mirrors generated")
	}
}

func TestHandler(t *testing.T) {
	w := Build(synthetic(20), Options{Seed: 3, Hostile: true})
	srv := httptest.NewServer(w.Handler())
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		path, contains string
		status         int
	}{
		{"/", "<a href=", 200},
		{"/news/d1", "<h1>Doc 1</h1>", 200},
		{"/robots.txt", "Disallow: /private/", 200},
		{"/nope", "", 404},
		{"/hostile/loop/a", "", 302},
		{"/hostile/error", "", 500},
		{"/hostile/trap/3", `href="/hostile/trap/4"`, 200},
	}
	for _, tt := range tests {
		resp, err := client.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.contains) {
			t.Errorf("GET %s: %d, body contains %q: %v; want %d", tt.path, resp.StatusCode, tt.contains, strings.Contains(string(body), tt.contains), tt.status)
		}
	}
	if w.Hits("/news/d1") != 1 || len(w.Log()) != len(tests) {
		t.Errorf("hits %d, log %d; want 1 and %d", w.Hits("/news/d1"), len(w.Log()), len(tests))
	}
}
