package eval

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
)

var _ PayloadReader = (*dedupfilter.Filter)(nil)

// fakeStore is a PayloadReader over clusters and payload texts.
type fakeStore struct {
	clusters []dedupfilter.Cluster
	texts    map[string]string // id -> text field
	indexed  map[string]bool   // members in the search index besides representatives
	err      error             // returned by Clusters
}

func (s fakeStore) Clusters(fn func(dedupfilter.Cluster) error) error {
	if s.err != nil {
		return s.err
	}
	for _, c := range s.clusters {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func (s fakeStore) Doc(id string) (dedupfilter.Entry, error) {
	text, ok := s.texts[id]
	if !ok {
		return dedupfilter.Entry{}, fmt.Errorf("dedupfilter: %w", dedupfilter.ErrNotFound)
	}
	payload := fmt.Appendf(nil, `{"title":"T %s","text":%q}`, id, text)
	return dedupfilter.Entry{Doc: dedupfilter.Doc{ID: id, Payload: payload}, Indexed: s.indexed[id]}, nil
}

// cluster makes a cluster of members whose representative is the first.
func cluster(members ...string) dedupfilter.Cluster {
	return dedupfilter.Cluster{ID: "c-" + members[0], Representative: members[0], Members: slices.Sorted(slices.Values(members))}
}

const article = "The council approved the new library budget on Tuesday after a long debate about opening hours"

func TestLostContent(t *testing.T) {
	tests := []struct {
		name     string
		clusters []dedupfilter.Cluster
		texts    map[string]string
		indexed  map[string]bool
		want     Lost
	}{
		{
			name:     "a page kept in the search index is not left out",
			clusters: []dedupfilter.Cluster{cluster("a", "b", "c")},
			texts:    map[string]string{"a": article, "b": "Quoting one line from the council", "c": article},
			indexed:  map[string]bool{"b": true},
			want:     Lost{LeftOut: 1, MinShare: 1},
		},
		{
			name:     "singletons leave nothing out",
			clusters: []dedupfilter.Cluster{cluster("a"), cluster("b")},
			texts:    map[string]string{"a": article, "b": "other"},
			want:     Lost{MinShare: 1},
		},
		{
			name:     "exact copy",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": article, "b": article},
			want:     Lost{LeftOut: 1, MinShare: 1},
		},
		{
			// 15 distinct terms ("the" twice), "tuesday" replaced.
			name:     "reprint with an edit keeps most",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": article, "b": strings.Replace(article, "Tuesday", "Wednesday", 1)},
			want:     Lost{LeftOut: 1, MinShare: 14.0 / 15},
		},
		{
			name:     "case, width and paragraphs do not count",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": "Hello World.\nSecond paragraph", "b": "ＨＥＬＬＯ world. second\n\nPARAGRAPH"},
			want:     Lost{LeftOut: 1, MinShare: 1},
		},
		{
			// b's terms: quoting, one, line, from, the, council; a holds two.
			name:     "a page quoting another is lost",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": article, "b": "Quoting one line from the council"},
			want: Lost{LeftOut: 1, Lost: 1, MinShare: 2.0 / 6,
				Worst: []LostPage{{ID: "b", Kept: "a", Share: 2.0 / 6}}},
		},
		{
			// Bigrams of b: 天气 气很 很坏; 坏 is not in a.
			name:     "han text as bigrams",
			clusters: []dedupfilter.Cluster{cluster("a", "b", "c")},
			texts:    map[string]string{"a": "今天天气很好，我们去公园。", "b": "天气很坏", "c": "今天天氣很好"},
			want:     Lost{LeftOut: 2, MinShare: 2.0 / 3},
		},
		{
			name:     "a member without text loses nothing",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": article, "b": " 。"},
			want:     Lost{LeftOut: 1, MinShare: 1},
		},
		{
			name:     "at the bound is kept",
			clusters: []dedupfilter.Cluster{cluster("a", "b")},
			texts:    map[string]string{"a": "one two three", "b": "one two three four five"},
			want:     Lost{LeftOut: 1, MinShare: 0.6},
		},
		{
			name: "worst five, lowest share first",
			clusters: []dedupfilter.Cluster{
				cluster("a", "m1", "m2", "m3"), cluster("z", "m4", "m5", "m6"),
			},
			texts: map[string]string{
				"a": "one", "z": "one",
				"m1": "one x", "m2": "one x y", "m3": "one x y z",
				"m4": "x", "m5": "one x", "m6": "one two three four five six seven eight nine ten",
			},
			want: Lost{LeftOut: 6, Lost: 6, MinShare: 0, Worst: []LostPage{
				{"m4", "z", 0}, {"m6", "z", 0.1}, {"m3", "a", 0.25}, {"m2", "a", 1.0 / 3}, {"m1", "a", 0.5},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LostContent(fakeStore{clusters: tt.clusters, texts: tt.texts, indexed: tt.indexed}, TextFields("text"), LostShare)
			if err != nil {
				t.Fatalf("LostContent: %v", err)
			}
			if !sameLost(got, tt.want) {
				t.Errorf("LostContent = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func sameLost(a, b Lost) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.LeftOut == b.LeftOut && a.Lost == b.Lost && near(a.MinShare, b.MinShare) &&
		slices.EqualFunc(a.Worst, b.Worst, func(x, y LostPage) bool {
			return x.ID == y.ID && x.Kept == y.Kept && near(x.Share, y.Share)
		})
}

func TestLostContentErrors(t *testing.T) {
	broken := errors.New("broken")
	tests := []struct {
		name    string
		store   fakeStore
		textOf  func([]byte) (string, error)
		want    string
		wantErr error
	}{
		{"clusters", fakeStore{err: broken}, TextFields("text"), "eval: clusters: broken", broken},
		{"missing document", fakeStore{clusters: []dedupfilter.Cluster{cluster("a", "b")}, texts: map[string]string{"a": "x"}},
			TextFields("text"), `eval: payload of b: `, dedupfilter.ErrNotFound},
		{"text", fakeStore{clusters: []dedupfilter.Cluster{cluster("a", "b")}, texts: map[string]string{"a": "x", "b": "x"}},
			func([]byte) (string, error) { return "", broken }, "eval: text of a: broken", broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LostContent(tt.store, tt.textOf, LostShare)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, tt.wantErr) {
				t.Errorf("LostContent error = %v, want %q... wrapping %v", err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestTextFields(t *testing.T) {
	tests := []struct {
		payload string
		paths   []string
		want    string
		wantErr bool
	}{
		{`{"title":"T","text":"a\nb"}`, []string{"text"}, "a\nb", false},
		{`{"title":"T","text":"a"}`, []string{"title", "text"}, "T\na", false},
		{`{"body":{"parts":["a","b"]}}`, []string{"body.parts"}, "a\nb", false},
		{`{"title":"T"}`, []string{"text"}, "", false},
		{`not json`, []string{"text"}, "", true},
	}
	for _, tt := range tests {
		got, err := TextFields(tt.paths...)([]byte(tt.payload))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("TextFields(%q)(%s) = %q, %v; want %q, error %v", tt.paths, tt.payload, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestTermSetIsFeatureTerms: the terms compared are the filter's own.
func TestTermSetIsFeatureTerms(t *testing.T) {
	a, err := analyzer.New(analyzer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, paras := range [][]string{
		{article, "Second PARAGRAPH, with “quotes” and 3.14 numbers."},
		{"今天天气很好，我们去公园。", "單字 a 中 b", "混合Go语言text"},
	} {
		got := slices.Sorted(maps.Keys(termSet(strings.Join(paras, "\n"))))
		want := slices.Sorted(maps.Keys(a.Analyze(paras).Terms))
		if !slices.Equal(got, want) {
			t.Errorf("termSet(%q) = %q, want Features.Terms %q", paras, got, want)
		}
	}
}
