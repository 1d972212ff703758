package sitetext

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/url"
	"path"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
)

// Table is the sites' paragraph tables in a Badger store, under keys that
// start with "t/": for each site, the hash of every paragraph shown, the
// first page that showed it and whether another page showed it too, and
// each page's own-text length. A nil *Table keeps every paragraph
// (template detection off).
type Table struct {
	db         *badger.DB
	staleShare float64
}

// New returns the table kept in db, which the caller opened, may share
// with other key namespaces, and closes. Calls to Clean must not run
// concurrently: the indexer makes them in input order, and they run
// without Badger's conflict tracking.
func New(db *badger.DB) *Table {
	return &Table{db: db, staleShare: DefaultStaleShare}
}

// DefaultStaleShare is how much of an earlier page's own text must turn
// out to be template text before Clean names the page stale (so that the
// indexer analyses it again and re-decides its cluster). Re-deciding a
// cluster costs as much as adding each of its members again, and a
// template line or a "related articles" link that reaches a second page
// is a small part of the first: below a tenth of the text it cannot make
// two articles match, so it is left until more of the template shows.
// The development set's figures are the same at 0 (every reveal) and at
// 0.1; a crawl with "related" boxes re-decides far less.
const DefaultStaleShare = 0.1

// WithStaleShare returns t with the stale share set to share (0: every
// reveal makes a page stale).
func (t *Table) WithStaleShare(share float64) *Table {
	return &Table{db: t.db, staleShare: share}
}

// ns is the key namespace of the table in a shared store.
const ns = "t/"

// Site is the site a page belongs to: the host of pageURL, or for pages
// without a URL the directory part of their id (a crawl saved as
// site/path files); "" when neither tells.
func Site(pageURL, id string) string {
	if u, err := url.Parse(pageURL); err == nil && u.Host != "" {
		return u.Hostname()
	}
	if d := path.Dir(id); d != "." {
		return d
	}
	return ""
}

// minKept is the share of a page's text that must survive: a page with
// (almost) nothing of its own is a same-site copy of another page, and is
// kept whole so that it matches it. Template pages can carry a short
// article in a long page (under 5% of the text on the development set),
// so the bar is low.
const minKept = 0.01

// copyShare is how much of a page's own text (what is not known template
// text) must come from one earlier page of the site for the page to be a
// copy of it (a print version, a URL variant, a mirror) rather than another
// article in the same template. The rule cannot tell a copy from a short
// article in a long template while the site has shown that template on one
// page only.
const copyShare = 0.8

// Clean returns paras without the paragraphs that more than one page of
// the site showed, and records paras as shown by id. stale lists the
// earlier pages whose paragraphs turned out to be template text just now:
// their features were computed with it. A page that is a copy of an
// earlier page of the site is kept whole and marks nothing as template.
func (t *Table) Clean(site, id string, paras []string) (kept, stale []string, err error) {
	if t == nil || site == "" || len(paras) < 2 {
		return paras, nil, nil // no site rule, or nothing to tell apart
	}
	err = t.db.Update(func(txn *badger.Txn) error {
		pg, err := lookup(txn, site, id, paras)
		if err != nil {
			return err
		}
		if err := pg.decide(txn, site); err != nil {
			return err
		}
		kept = pg.kept(paras)
		stale, err = pg.write(txn, site, t.staleShare)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sitetext: %s: %w", id, err)
	}
	return kept, stale, nil
}

// paragraph is what the table knows of one paragraph of the page.
type paragraph struct {
	key    []byte
	runes  int
	owner  string // first page that showed it; "" when none did
	shared bool   // shown by two pages or more
}

// page is one Clean call's view of the page against the table.
type page struct {
	id       string
	paras    []paragraph
	total    int            // runes of the page
	template int            // runes of known template text
	owners   map[string]int // runes shown first by each other page
	isCopy   bool           // a copy of one earlier page of the site
}

// lookup reads what the table knows of each of paras. A paragraph's
// value is the first page that showed it, then a byte that is 1 once
// another page showed it too.
func lookup(txn *badger.Txn, site, id string, paras []string) (*page, error) {
	pg := &page{id: id, paras: make([]paragraph, len(paras)), owners: map[string]int{}}
	var norm []byte
	for i, p := range paras {
		norm = analyzer.AppendNormalized(norm[:0], p)
		pp := &pg.paras[i]
		*pp = paragraph{key: paragraphKey(site, norm), runes: utf8.RuneCount(norm)}
		pg.total += pp.runes
		item, err := txn.Get(pp.key)
		if err == badger.ErrKeyNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		v, err := item.ValueCopy(nil)
		if err != nil || len(v) == 0 {
			return nil, fmt.Errorf("bad value for %q: %v", pp.key, err)
		}
		pp.owner, pp.shared = string(v[:len(v)-1]), v[len(v)-1] == 1
		switch {
		case pp.shared:
			pg.template += pp.runes
		case pp.owner != id:
			pg.owners[pp.owner] += pp.runes
		}
	}
	return pg, nil
}

// own is the length of the page's own text: what is not known template.
func (pg *page) own() int { return pg.total - pg.template }

// decide tells a copy of an earlier page of the site (a print version, a
// URL variant, a mirror) from another article in the same template.
func (pg *page) decide(txn *badger.Txn, site string) error {
	own := pg.own()
	for owner, n := range pg.owners {
		r, err := getPageRunes(txn, site, owner)
		if err != nil {
			return err
		}
		ownerOwn := r.own
		// Either page may be the longer: a mirror that dropped a
		// paragraph, or the original arriving after its mirror.
		if float64(n) >= copyShare*float64(own) || (ownerOwn > 0 && float64(n) >= copyShare*float64(ownerOwn)) {
			pg.isCopy = true
		}
	}
	return nil
}

// isTemplate reports whether paragraph i is template text: known as
// such, or shown first by another article's page (which becomes stale).
func (pg *page) isTemplate(i int) bool {
	p := pg.paras[i]
	return p.shared || (p.owner != "" && p.owner != pg.id && !pg.isCopy)
}

// kept returns the paragraphs of paras that are the page's own, or all
// of them when (almost) nothing would be left.
func (pg *page) kept(paras []string) []string {
	var kept []string
	keptRunes := 0
	for i, p := range pg.paras {
		if pg.isTemplate(i) {
			continue
		}
		kept = append(kept, paras[i])
		keptRunes += p.runes
	}
	if float64(keptRunes) < minKept*float64(pg.total) {
		return paras
	}
	return kept
}

// write records the page's new paragraphs as its own, marks the
// paragraphs another article showed first as shared, and stores the
// page's own-text length. It returns the earlier pages to analyse again:
// those whose text revealed as template since they were analysed reached
// staleShare of their own text.
func (pg *page) write(txn *badger.Txn, site string, staleShare float64) (stale []string, err error) {
	revealed := map[string]int{}
	var owners []string // in page order, for a stable stale list
	for i, p := range pg.paras {
		switch {
		case p.owner == "":
			if err := txn.Set(p.key, append([]byte(pg.id), 0)); err != nil {
				return nil, err
			}
		case !p.shared && pg.isTemplate(i):
			// That page's features still hold it.
			if err := txn.Set(p.key, append([]byte(p.owner), 1)); err != nil {
				return nil, err
			}
			if _, ok := revealed[p.owner]; !ok {
				owners = append(owners, p.owner)
			}
			revealed[p.owner] += p.runes
		}
	}
	if err := setPageRunes(txn, site, pg.id, pageRunes{own: pg.own()}); err != nil {
		return nil, err
	}
	for _, o := range owners {
		r, err := getPageRunes(txn, site, o)
		if err != nil {
			return nil, err
		}
		r.revealed += revealed[o]
		if float64(r.revealed) >= staleShare*float64(r.own) {
			stale = append(stale, o) // analysing it again stores it anew
			continue
		}
		if err := setPageRunes(txn, site, o, r); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// pageRunes is what the table keeps of a page: the length of its own text
// (not known template text) when it was last analysed, and how much of
// that has been revealed as template text since.
type pageRunes struct{ own, revealed int }

// getPageRunes reads a page's lengths; an unknown page has zeros.
func getPageRunes(txn *badger.Txn, site, id string) (pageRunes, error) {
	item, err := txn.Get(pageKey(site, id))
	if err == badger.ErrKeyNotFound {
		return pageRunes{}, nil
	}
	if err != nil {
		return pageRunes{}, err
	}
	var r pageRunes
	err = item.Value(func(v []byte) error {
		own, k := binary.Uvarint(v)
		if k <= 0 {
			return fmt.Errorf("bad page length for %q", id)
		}
		r.own = int(own)
		if v = v[k:]; len(v) > 0 { // older tables kept the own length only
			rev, k := binary.Uvarint(v)
			if k != len(v) {
				return fmt.Errorf("bad page length for %q", id)
			}
			r.revealed = int(rev)
		}
		return nil
	})
	return r, err
}

func setPageRunes(txn *badger.Txn, site, id string, r pageRunes) error {
	v := binary.AppendUvarint(nil, uint64(r.own))
	if r.revealed > 0 {
		v = binary.AppendUvarint(v, uint64(r.revealed))
	}
	return txn.Set(pageKey(site, id), v)
}

// pageKey holds a page's lengths; 1 after the site name keeps it apart
// from paragraph keys.
func pageKey(site, id string) []byte {
	k := make([]byte, 0, len(ns)+len(site)+1+len(id))
	k = append(k, ns...)
	k = append(k, site...)
	k = append(k, 1)
	return append(k, id...)
}

func paragraphKey(site string, norm []byte) []byte {
	h := fnv.New64a()
	h.Write(norm)
	k := make([]byte, 0, len(ns)+len(site)+9)
	k = append(k, ns...)
	k = append(k, site...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, h.Sum64())
}
