package canon

import (
	"errors"
	"net/url"
	"testing"
)

func TestURL(t *testing.T) {
	base, _ := url.Parse("http://Example.com/dir/page.html?x=1")
	tests := []struct {
		name, base, ref, want string
	}{
		{"scheme and host case", "", "HTTP://WWW.Example.COM/Path", "http://www.example.com/Path"},
		{"default http port", "", "http://example.com:80/a", "http://example.com/a"},
		{"default https port", "", "https://example.com:443/a", "https://example.com/a"},
		{"other port kept", "", "http://example.com:8080/a", "http://example.com:8080/a"},
		{"https port 80 kept", "", "https://example.com:80/a", "https://example.com:80/a"},
		{"fragment", "", "http://example.com/a#top", "http://example.com/a"},
		{"empty path", "", "http://example.com", "http://example.com/"},
		{"query order", "", "http://example.com/?b=2&a=1&c=3", "http://example.com/?a=1&b=2&c=3"},
		{"repeated keys keep order", "", "http://example.com/?b=2&a=9&a=1", "http://example.com/?a=9&a=1&b=2"},
		{"tracking params", "", "http://example.com/a?utm_source=x&id=7&fbclid=abc&gclid=q&UTM_Medium=m", "http://example.com/a?id=7"},
		{"only tracking", "", "http://example.com/a?utm_campaign=z", "http://example.com/a"},
		{"dot segments", "", "http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"user info dropped", "", "http://user:pw@example.com/", "http://example.com/"},
		{"trailing dot host", "", "http://example.com./a", "http://example.com/a"},
		{"escape case", "", "http://example.com/%7euser/%e9%b2%a4", "http://example.com/~user/%E9%B2%A4"},
		{"unicode path", "", "http://example.com/wiki/鲤鱼", "http://example.com/wiki/%E9%B2%A4%E9%B1%BC"},
		{"escaped slash kept", "", "http://example.com/a%2fb/c", "http://example.com/a%2Fb/c"},
		{"idna host", "", "http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{"ipv6", "", "http://[::1]:80/x", "http://[::1]/x"},
		{"query escapes", "", "http://example.com/s?q=a+b&r=%7e", "http://example.com/s?q=a+b&r=~"},
		{"relative", "b", "other.html#f", "http://example.com/dir/other.html"},
		{"relative parent", "b", "../up?z=1&y=2", "http://example.com/up?y=2&z=1"},
		{"protocol relative", "b", "//cdn.example.com/x", "http://cdn.example.com/x"},
		{"query only", "b", "?p=2", "http://example.com/dir/page.html?p=2"},
		{"index.html", "", "http://example.com/a/index.html", "http://example.com/a/"},
		{"root index.htm", "", "http://example.com/INDEX.HTM", "http://example.com/"},
		{"default.aspx with query", "", "http://example.com/n/Default.aspx?id=3&utm_source=x", "http://example.com/n/?id=3"},
		{"index.php", "", "http://example.com/index.php#top", "http://example.com/"},
		{"relative index", "b", "index.html?utm_medium=rss", "http://example.com/dir/"},
		{"index as directory", "", "http://example.com/index.html/x", "http://example.com/index.html/x"},
		{"not an index", "", "http://example.com/a/index.html.bak", "http://example.com/a/index.html.bak"},
		{"index-like name", "", "http://example.com/a/myindex.html", "http://example.com/a/myindex.html"},
		{"escaped slash before index", "", "http://example.com/a%2Fb/index.html", "http://example.com/a%2Fb/"},
		{"escaped index name", "", "http://example.com/a/%69ndex.html", "http://example.com/a/"},
	}
	for _, tt := range tests {
		var b *url.URL
		if tt.base != "" {
			b = base
		}
		got, err := URL(b, tt.ref, nil)
		if err != nil {
			t.Errorf("%s: URL(%q) error %v", tt.name, tt.ref, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: URL(%q) = %q, want %q", tt.name, tt.ref, got, tt.want)
		}
		// Canonical URLs are fixed points.
		if again, err := URL(nil, got, nil); err != nil || again != got {
			t.Errorf("%s: URL(%q) = %q, %v; not a fixed point", tt.name, got, again, err)
		}
	}
}

func TestURLRejects(t *testing.T) {
	for _, ref := range []string{"mailto:a@b.c", "javascript:alert(1)", "ftp://example.com/", "/relative/without/base", "http://", "http://a b.com/", "%zz"} {
		if got, err := URL(nil, ref, nil); !errors.Is(err, ErrBadURL) {
			t.Errorf("URL(%q) = %q, %v; want ErrBadURL", ref, got, err)
		}
	}
}

func TestURLCustomStrip(t *testing.T) {
	got, err := URL(nil, "http://example.com/?sid=1&utm_source=2&a=3", []string{"sid"})
	if want := "http://example.com/?a=3&utm_source=2"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func FuzzURL(f *testing.F) {
	for _, s := range []string{"http://Example.com:80/a/../b?z=1&utm_source=x#f", "https://[::1]:443/%2f%7e", "//x/y", "http://a/b?c=%zz&d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		got, err := URL(nil, ref, nil)
		if err != nil {
			return
		}
		again, err := URL(nil, got, nil)
		if err != nil || again != got {
			t.Fatalf("URL(%q) = %q, but URL of that = %q, %v", ref, got, again, err)
		}
	})
}
