package indexer

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/url"
	"path"
	"slices"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// siteText recognises a site's template text: a paragraph already shown
// on another page of the same site (navigation, sidebars, a blog's other
// posts, footers) belongs to the site, not to the article. Reprints live
// on other sites, so dropping such paragraphs before analysis keeps two
// different articles in one template from looking alike, while copies of
// one article on different sites keep all their text.
//
// The first page of a site cannot tell its template from its article; when
// a later page shows one of its paragraphs, clean names it so the indexer
// analyses it again without the template.
type siteText struct {
	db *badger.DB
}

// minKept is the share of a page's text that must survive: a page with
// (almost) nothing of its own is a same-site copy of another page, and is
// kept whole so that it matches it. Template pages can carry a short
// article in a long page (under 5% of the text on the development set),
// so the bar is low.
const minKept = 0.01

func openSiteText(dir string) (*siteText, error) {
	o := badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(8 << 20).WithBlockCacheSize(8 << 20)
	db, err := badger.Open(o)
	if err != nil {
		return nil, err
	}
	return &siteText{db: db}, nil
}

func (s *siteText) Close() error { return s.db.Close() }

// site is the host of pageURL, or for pages without a URL the directory
// part of their id (a crawl saved as site/path files).
func site(pageURL, id string) string {
	if u, err := url.Parse(pageURL); err == nil && u.Host != "" {
		return u.Hostname()
	}
	if d := path.Dir(id); d != "." {
		return d
	}
	return ""
}

// clean returns paras without the paragraphs that more than one page of
// the site showed, and records paras as shown by id. stale lists the
// earlier pages whose paragraphs turned out to be template text just now:
// their features were computed with it. A nil siteText keeps everything.
func (s *siteText) clean(siteName, id string, paras []string) (kept, stale []string, err error) {
	if s == nil || siteName == "" || len(paras) < 2 {
		return paras, nil, nil // no site rule (Options.KeepSiteText), or nothing to tell apart
	}
	kept = make([]string, 0, len(paras))
	total, keptRunes := 0, 0
	var norm []byte
	// A value is the first page that showed the paragraph, then a byte
	// that is 1 once another page showed it too.
	err = s.db.Update(func(txn *badger.Txn) error {
		for _, p := range paras {
			norm = analyzer.AppendNormalized(norm[:0], p)
			n := utf8.RuneCount(norm)
			total += n
			k := paragraphKey(siteName, norm)
			item, err := txn.Get(k)
			if err == badger.ErrKeyNotFound {
				if err := txn.Set(k, append([]byte(id), 0)); err != nil {
					return err
				}
				kept = append(kept, p)
				keptRunes += n
				continue
			}
			if err != nil {
				return err
			}
			v, err := item.ValueCopy(nil)
			if err != nil || len(v) == 0 {
				return fmt.Errorf("bad value for %q: %v", k, err)
			}
			owner, shared := string(v[:len(v)-1]), v[len(v)-1] == 1
			switch {
			case owner == id && !shared:
				kept = append(kept, p)
				keptRunes += n
			case owner != id && !shared:
				v[len(v)-1] = 1
				if err := txn.Set(k, v); err != nil {
					return err
				}
				if !slices.Contains(stale, owner) {
					stale = append(stale, owner)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("indexer: site text: %w", err)
	}
	if float64(keptRunes) < minKept*float64(total) {
		return paras, stale, nil
	}
	return kept, stale, nil
}

func paragraphKey(siteName string, norm []byte) []byte {
	h := fnv.New64a()
	h.Write(norm)
	k := make([]byte, 0, len(siteName)+9)
	k = append(k, siteName...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, h.Sum64())
}
