package sitetext

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"path"
	"unicode/utf8"

	"github.com/bleve-dedup/bleve-dedup/analyzer"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// Table is the rules and settings of the sites' paragraph tables, kept in
// a Badger store under keys that start with "t/": for each site, the hash
// of every paragraph shown, the first page that showed it and whether
// another page showed it too, each page's own-text length, and the pages
// waiting to be analysed again. A nil *Table keeps every paragraph
// (template detection off).
type Table struct {
	staleShare float64
}

// New returns a table with DefaultStaleShare.
func New() *Table {
	return &Table{staleShare: DefaultStaleShare}
}

// DefaultStaleShare is how much of an earlier page's own text must turn
// out to be template text before a plan names the page stale (so that the
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
	return &Table{staleShare: share}
}

// ns is the key namespace of the table in a store; staleNS, apart from it
// (site names may hold any byte), the pages waiting to be analysed again
// (package store's key schema).
const (
	ns      = store.NSSite
	staleNS = store.NSSiteStale
)

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

// Reader reads the table's keys: a store's KV through KVReader, or an
// Overlay of planned writes over one.
type Reader interface {
	// Get returns the value of key, or ok false when it has none.
	Get(key []byte) (value []byte, ok bool, err error)
}

// KV is what the table needs of a store's transaction (package store's
// KV): the indexer commits a page's plan with its decision.
type KV interface {
	Get(key []byte) ([]byte, error) // store.ErrNotFound when absent
	Set(key, value []byte) error
	Delete(key []byte) error
	Scan(prefix []byte, fn func(key, value []byte) error) error
}

// KVReader reads a store's KV.
type KVReader struct{ KV KV }

// Get implements Reader.
func (r KVReader) Get(key []byte) ([]byte, bool, error) {
	v, err := r.KV.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// Overlay reads planned writes before its base: plans of pages not yet
// committed, so that each page is planned against the pages before it.
type Overlay struct {
	base   Reader
	writes map[string][]byte
}

// NewOverlay returns an empty overlay over base.
func NewOverlay(base Reader) *Overlay {
	return &Overlay{base: base, writes: map[string][]byte{}}
}

// Get implements Reader.
func (o *Overlay) Get(key []byte) ([]byte, bool, error) {
	if v, ok := o.writes[string(key)]; ok {
		return v, true, nil
	}
	return o.base.Get(key)
}

// Add makes p's writes visible to later reads.
func (o *Overlay) Add(p *Plan) {
	for _, w := range p.writes {
		o.writes[string(w.key)] = w.value
	}
}

// Plan is the cleaning of one page: the paragraphs to analyse, the earlier
// pages to analyse again, and the writes that record the page. Commit the
// writes (Apply) with the page's other writes, so that a crash keeps both
// or neither.
type Plan struct {
	// Kept are the page's paragraphs without its site's template text: all
	// of them when the page is a copy of another page of its site or would
	// keep (almost) nothing.
	Kept []string
	// Left are the paragraphs left out of Kept, in order: with them a
	// page's whole text, which is what a search loses with the page.
	Left []string
	// Stale are the earlier pages whose text turned out to be template
	// text, enough of it (StaleShare) for their features to be computed
	// again. Apply records them as waiting (see Stale).
	Stale  []string
	writes []write
}

type write struct{ key, value []byte }

// Plan plans the cleaning of page id of site, paragraphs paras, against
// the table as r reads it. A nil Table, an empty site or a single
// paragraph keeps everything and writes nothing.
func (t *Table) Plan(r Reader, site, id string, paras []string) (*Plan, error) {
	if t == nil || site == "" || len(paras) < 2 {
		return &Plan{Kept: paras}, nil // no site rule, or nothing to tell apart
	}
	pg, err := lookup(r, site, id, paras)
	if err == nil {
		err = pg.decide(r, site)
	}
	p := &Plan{}
	if err == nil {
		p.Kept, p.Left = pg.kept(paras)
		err = pg.plan(r, site, t.staleShare, p)
	}
	if err != nil {
		return nil, fmt.Errorf("sitetext: %s: %w", id, err)
	}
	return p, nil
}

// Apply writes the plan in kv.
func (p *Plan) Apply(kv KV) error {
	for _, w := range p.writes {
		if err := kv.Set(w.key, w.value); err != nil {
			return fmt.Errorf("sitetext: %w", err)
		}
	}
	return nil
}

// Stale returns the pages planned stale whose re-analysis has not been
// done (Done) yet: after a crash, what is left to redo.
func Stale(kv KV) ([]string, error) {
	var ids []string
	err := kv.Scan([]byte(staleNS), func(k, _ []byte) error {
		ids = append(ids, string(k[len(staleNS):]))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sitetext: %w", err)
	}
	return ids, nil
}

// Done records in kv that page id has been analysed again.
func Done(kv KV, id string) error {
	if err := kv.Delete(append([]byte(staleNS), id...)); err != nil {
		return fmt.Errorf("sitetext: %w", err)
	}
	return nil
}

// paragraph is what the table knows of one paragraph of the page.
type paragraph struct {
	key    []byte
	runes  int
	owner  string // first page that showed it; "" when none did
	shared bool   // shown by two pages or more
}

// page is one plan's view of the page against the table.
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
func lookup(r Reader, site, id string, paras []string) (*page, error) {
	pg := &page{id: id, paras: make([]paragraph, len(paras)), owners: map[string]int{}}
	var norm []byte
	for i, p := range paras {
		norm = analyzer.AppendNormalized(norm[:0], p)
		pp := &pg.paras[i]
		*pp = paragraph{key: paragraphKey(site, norm), runes: utf8.RuneCount(norm)}
		pg.total += pp.runes
		v, ok, err := r.Get(pp.key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("empty value for %q", pp.key)
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
func (pg *page) decide(r Reader, site string) error {
	own := pg.own()
	for owner, n := range pg.owners {
		o, err := getPageRunes(r, site, owner)
		if err != nil {
			return err
		}
		// Either page may be the longer: a mirror that dropped a
		// paragraph, or the original arriving after its mirror.
		if float64(n) >= copyShare*float64(own) || (o.own > 0 && float64(n) >= copyShare*float64(o.own)) {
			pg.isCopy = true
		}
	}
	return nil
}

// isTemplate reports whether paragraph i is template text: known as
// such, or shown first by another article's page.
func (pg *page) isTemplate(i int) bool {
	p := pg.paras[i]
	return p.shared || (p.owner != "" && p.owner != pg.id && !pg.isCopy)
}

// kept returns the paragraphs of paras that are the page's own, or all
// of them when (almost) nothing would be left, and the others.
func (pg *page) kept(paras []string) (kept, left []string) {
	keptRunes := 0
	for i, p := range pg.paras {
		if pg.isTemplate(i) {
			left = append(left, paras[i])
			continue
		}
		kept = append(kept, paras[i])
		keptRunes += p.runes
	}
	if float64(keptRunes) < minKept*float64(pg.total) {
		return paras, nil
	}
	return kept, left
}

// plan adds to p the writes that record the page's new paragraphs as its
// own, mark the paragraphs another article showed first as shared, and
// store the page's own-text length; and it names stale the earlier pages
// whose text revealed as template since they were analysed reached
// staleShare of their own text.
func (pg *page) plan(r Reader, site string, staleShare float64, p *Plan) error {
	set := func(k, v []byte) { p.writes = append(p.writes, write{k, v}) }
	revealed := map[string]int{}
	var owners []string // in page order, for a stable stale list
	for i, pp := range pg.paras {
		switch {
		case pp.owner == "":
			set(pp.key, append([]byte(pg.id), 0))
		case !pp.shared && pg.isTemplate(i):
			set(pp.key, append([]byte(pp.owner), 1)) // that page's features still hold it
			if _, ok := revealed[pp.owner]; !ok {
				owners = append(owners, pp.owner)
			}
			revealed[pp.owner] += pp.runes
		}
	}
	set(pageKey(site, pg.id), encodePageRunes(pageRunes{own: pg.own()}))
	for _, o := range owners {
		rs, err := getPageRunes(r, site, o)
		if err != nil {
			return err
		}
		rs.revealed += revealed[o]
		if float64(rs.revealed) >= staleShare*float64(rs.own) {
			// Analysing it again plans and stores it anew.
			p.Stale = append(p.Stale, o)
			set(append([]byte(staleNS), o...), nil)
			continue
		}
		set(pageKey(site, o), encodePageRunes(rs))
	}
	return nil
}

// pageRunes is what the table keeps of a page: the length of its own text
// (not known template text) when it was last analysed, and how much of
// that has been revealed as template text since.
type pageRunes struct{ own, revealed int }

// getPageRunes reads a page's lengths; an unknown page has zeros.
func getPageRunes(r Reader, site, id string) (pageRunes, error) {
	v, ok, err := r.Get(pageKey(site, id))
	if err != nil || !ok {
		return pageRunes{}, err
	}
	var rs pageRunes
	own, k := binary.Uvarint(v)
	if k <= 0 {
		return pageRunes{}, fmt.Errorf("bad page length for %q", id)
	}
	rs.own = int(own)
	if v = v[k:]; len(v) > 0 {
		rev, k := binary.Uvarint(v)
		if k != len(v) {
			return pageRunes{}, fmt.Errorf("bad page length for %q", id)
		}
		rs.revealed = int(rev)
	}
	return rs, nil
}

func encodePageRunes(r pageRunes) []byte {
	v := binary.AppendUvarint(nil, uint64(r.own))
	if r.revealed > 0 {
		v = binary.AppendUvarint(v, uint64(r.revealed))
	}
	return v
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
