package normalize

import (
	"testing"

	"github.com/blevesearch/bleve/v2/registry"
)

func TestFilter(t *testing.T) {
	cf, err := registry.NewCache().CharFilterNamed(Name)
	if err != nil {
		t.Fatalf("CharFilterNamed(%q): %v", Name, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"ＡＢＣ，「中文」\u200b", `abc,"中文"`},
		{"圖書館", "图书馆"},
		{"", ""},
	} {
		if got := string(cf.Filter([]byte(tc.in))); got != tc.want {
			t.Errorf("Filter(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
