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
// of every paragraph shown, the first page that showed it (by a hash of
// its id) and whether another page showed it too, each page's id and
// own-text length, and the pages waiting to be analysed again. A nil
// *Table keeps every paragraph (template detection off).
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
	owner  ref    // first page that showed it; "" when none did
	legacy string // that page's id, when the value names it (see value)
	shared bool   // shown by two pages or more
}

// ref names a page in the tables: the 8-byte FNV-1a hash of its id,
// which a paragraph's value holds in place of the id (a crawl's ids are
// its URLs, 50 to 100 bytes, and a page has ten or so paragraphs).
type ref string

func refOf(id string) ref {
	h := fnv.New64a()
	h.Write([]byte(id))
	return ref(h.Sum(nil))
}

// A paragraph's value: its first page's ref, then a byte that is
// ownerRef, or ownerRef|1 once another page showed it too. A table
// written before refs names the page by its id, the byte 0 or 1 after
// it; such values are read, and kept in their form when rewritten.
const ownerRef = 2

// value is the value of a paragraph first shown by owner, shared or not.
func (p paragraph) value(shared bool) []byte {
	flag := byte(0)
	if shared {
		flag = 1
	}
	if p.legacy != "" {
		return append([]byte(p.legacy), flag)
	}
	return append([]byte(p.owner), ownerRef|flag)
}

// page is one plan's view of the page against the table.
type page struct {
	id       string
	self     ref
	paras    []paragraph
	total    int            // runes of the page
	template int            // runes of known template text
	owners   map[ref]int    // runes shown first by each other page
	ids      map[ref]string // the ids of other pages, where known
	isCopy   bool           // a copy of one earlier page of the site
}

// lookup reads what the table knows of each of paras.
func lookup(r Reader, site, id string, paras []string) (*page, error) {
	pg := &page{id: id, self: refOf(id), paras: make([]paragraph, len(paras)), owners: map[ref]int{}, ids: map[ref]string{}}
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
		switch flag := v[max(len(v)-1, 0):]; {
		case len(flag) == 0:
			return nil, fmt.Errorf("empty value for %q", pp.key)
		case flag[0]&^1 == ownerRef && len(v) == 9:
			pp.owner, pp.shared = ref(v[:8]), flag[0]&1 == 1
		case flag[0] <= 1 && len(v) > 1:
			pp.legacy, pp.shared = string(v[:len(v)-1]), flag[0] == 1
			pp.owner = refOf(pp.legacy)
			pg.ids[pp.owner] = pp.legacy
		default:
			return nil, fmt.Errorf("bad value for %q", pp.key)
		}
		switch {
		case pp.shared:
			pg.template += pp.runes
		case pp.owner != pg.self:
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
		o, err := pg.getPage(r, site, owner)
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
	return p.shared || (p.owner != "" && p.owner != pg.self && !pg.isCopy)
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
	revealed := map[ref]int{}
	var owners []ref // in page order, for a stable stale list
	for i, pp := range pg.paras {
		switch {
		case pp.owner == "":
			set(pp.key, paragraph{owner: pg.self}.value(false)) // the page's own
		case !pp.shared && pg.isTemplate(i):
			set(pp.key, pp.value(true)) // that page's features still hold it
			if _, ok := revealed[pp.owner]; !ok {
				owners = append(owners, pp.owner)
			}
			revealed[pp.owner] += pp.runes
		}
	}
	set(pageKey(site, pg.self), encodePage(pageRunes{own: pg.own()}, pg.id))
	for _, o := range owners {
		rs, err := pg.getPage(r, site, o)
		if err != nil {
			return err
		}
		id, ok := pg.ids[o]
		if !ok {
			return fmt.Errorf("page %x of site %q has no record", o, site)
		}
		rs.revealed += revealed[o]
		if float64(rs.revealed) >= staleShare*float64(rs.own) {
			// Analysing it again plans and stores it anew.
			p.Stale = append(p.Stale, id)
			set(append([]byte(staleNS), id...), nil)
			continue
		}
		set(pageKey(site, o), encodePage(rs, id))
	}
	return nil
}

// pageRunes is what the table keeps of a page: the length of its own text
// (not known template text) when it was last analysed, and how much of
// that has been revealed as template text since.
type pageRunes struct{ own, revealed int }

// getPage reads the lengths of page o, and notes its id; an unknown page
// has zeros. A page recorded before refs is found by its id.
func (pg *page) getPage(r Reader, site string, o ref) (pageRunes, error) {
	v, ok, err := r.Get(pageKey(site, o))
	if err != nil {
		return pageRunes{}, err
	}
	var rs pageRunes
	if ok {
		var rest []byte
		if rs, rest, err = decodePage(v); err == nil && len(rest) == 0 {
			err = errors.New("no id")
		}
		if err != nil {
			return pageRunes{}, fmt.Errorf("page %x of site %q: %w", o, site, err)
		}
		pg.ids[o] = string(rest)
		return rs, nil
	}
	id, known := pg.ids[o]
	if !known {
		return pageRunes{}, nil
	}
	if v, ok, err = r.Get(legacyPageKey(site, id)); err != nil || !ok {
		return pageRunes{}, err
	}
	var rest []byte
	if rs, rest, err = decodePage(v); err == nil && len(rest) > 0 {
		err = errors.New("trailing bytes")
	}
	if err != nil {
		return pageRunes{}, fmt.Errorf("page %q: %w", id, err)
	}
	return rs, nil
}

// encodePage is a page's value: its lengths, then its id.
func encodePage(r pageRunes, id string) []byte {
	v := binary.AppendUvarint(nil, uint64(r.own))
	v = binary.AppendUvarint(v, uint64(r.revealed))
	return append(v, id...)
}

// decodePage reads what encodePage wrote, and what was written before
// refs: the own length, then the revealed one unless zero.
func decodePage(v []byte) (r pageRunes, rest []byte, err error) {
	own, k := binary.Uvarint(v)
	if k <= 0 {
		return r, nil, errors.New("bad page length")
	}
	r.own, v = int(own), v[k:]
	if len(v) > 0 {
		rev, k := binary.Uvarint(v)
		if k <= 0 {
			return r, nil, errors.New("bad page length")
		}
		r.revealed, v = int(rev), v[k:]
	}
	return r, v, nil
}

// pageKey holds a page's lengths and id; 2 after the site name keeps it
// apart from paragraph keys (0) and pages recorded before refs (1).
func pageKey(site string, o ref) []byte {
	k := make([]byte, 0, len(ns)+len(site)+1+len(o))
	k = append(k, ns...)
	k = append(k, site...)
	k = append(k, 2)
	return append(k, o...)
}

// legacyPageKey held a page's lengths before refs, by its id.
func legacyPageKey(site, id string) []byte {
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
