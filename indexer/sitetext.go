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
	// The indexer serialises clean calls, so conflict tracking is not needed.
	o := badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(8 << 20).WithBlockCacheSize(8 << 20).WithDetectConflicts(false)
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

// copyShare is how much of a page's own text (what is not known template
// text) must come from one earlier page of the site for the page to be a
// copy of it (a print version, a URL variant, a mirror) rather than another
// article in the same template. The rule cannot tell a copy from a short
// article in a long template while the site has shown that template on one
// page only.
const copyShare = 0.8

// clean returns paras without the paragraphs that more than one page of
// the site showed, and records paras as shown by id. stale lists the
// earlier pages whose paragraphs turned out to be template text just now:
// their features were computed with it. A page that is a copy of an
// earlier page of the site is kept whole and marks nothing as template.
// A nil siteText keeps everything.
func (s *siteText) clean(siteName, id string, paras []string) (kept, stale []string, err error) {
	if s == nil || siteName == "" || len(paras) < 2 {
		return paras, nil, nil // no site rule (Options.KeepSiteText), or nothing to tell apart
	}
	type seen struct {
		key    []byte
		runes  int
		owner  string // first page that showed it; "" when none did
		shared bool   // shown by two pages or more
	}
	ps := make([]seen, len(paras))
	total, template := 0, 0
	var norm []byte
	// A paragraph's value is the first page that showed it, then a byte
	// that is 1 once another page showed it too.
	err = s.db.Update(func(txn *badger.Txn) error {
		fromOwner := map[string]int{}
		for i, p := range paras {
			norm = analyzer.AppendNormalized(norm[:0], p)
			ps[i] = seen{key: paragraphKey(siteName, norm), runes: utf8.RuneCount(norm)}
			total += ps[i].runes
			item, err := txn.Get(ps[i].key)
			if err == badger.ErrKeyNotFound {
				continue
			}
			if err != nil {
				return err
			}
			v, err := item.ValueCopy(nil)
			if err != nil || len(v) == 0 {
				return fmt.Errorf("bad value for %q: %v", ps[i].key, err)
			}
			ps[i].owner, ps[i].shared = string(v[:len(v)-1]), v[len(v)-1] == 1
			switch {
			case ps[i].shared:
				template += ps[i].runes
			case ps[i].owner != id:
				fromOwner[ps[i].owner] += ps[i].runes
			}
		}
		own := total - template
		isCopy := false
		for owner, n := range fromOwner {
			ownerOwn, err := ownRunes(txn, siteName, owner)
			if err != nil {
				return err
			}
			// Either page may be the longer: a mirror that dropped a
			// paragraph, or the original arriving after its mirror.
			isCopy = isCopy || float64(n) >= copyShare*float64(own) || (ownerOwn > 0 && float64(n) >= copyShare*float64(ownerOwn))
		}
		keptRunes := 0
		for i, p := range ps {
			switch {
			case p.owner == "":
				if err := txn.Set(p.key, append([]byte(id), 0)); err != nil {
					return err
				}
			case p.shared:
				continue // known template text
			case p.owner != id && !isCopy:
				// Another article's page showed it too: template text,
				// which that page's features still hold.
				if err := txn.Set(p.key, append([]byte(p.owner), 1)); err != nil {
					return err
				}
				if !slices.Contains(stale, p.owner) {
					stale = append(stale, p.owner)
				}
				continue
			}
			kept = append(kept, paras[i])
			keptRunes += p.runes
		}
		if float64(keptRunes) < minKept*float64(total) {
			kept = paras
		}
		return txn.Set(pageKey(siteName, id), binary.AppendUvarint(nil, uint64(own)))
	})
	if err != nil {
		return nil, nil, fmt.Errorf("indexer: site text: %w", err)
	}
	return kept, stale, nil
}

// ownRunes is the length of a page's own text (not known template text)
// when it was cleaned, or 0 for an unknown page.
func ownRunes(txn *badger.Txn, siteName, id string) (int, error) {
	item, err := txn.Get(pageKey(siteName, id))
	if err == badger.ErrKeyNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return 0, err
	}
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return 0, fmt.Errorf("bad page length for %q", id)
	}
	return int(n), nil
}

// pageKey holds a page's own-text length; 1 after the site name keeps it
// apart from paragraph keys.
func pageKey(siteName, id string) []byte {
	k := make([]byte, 0, len(siteName)+1+len(id))
	k = append(k, siteName...)
	k = append(k, 1)
	return append(k, id...)
}

func paragraphKey(siteName string, norm []byte) []byte {
	h := fnv.New64a()
	h.Write(norm)
	k := make([]byte, 0, len(siteName)+9)
	k = append(k, siteName...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, h.Sum64())
}
