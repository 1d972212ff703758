package dedupfilter

import (
	"errors"
	"fmt"

	"github.com/bleve-dedup/bleve-dedup/similarity"
	"github.com/bleve-dedup/bleve-dedup/store"
)

// docFreq counts, for Options.BooleanStopShare, in how many stored
// documents each term occurs: a count-min sketch of two rows over the
// terms' 32-bit hashes, so its size is fixed (2 MiB) however many terms
// the store holds. A count is never under the truth; it is over it by
// about docs·2/sketchWidth at most with high probability (under 0.001% of
// the documents), which cannot make a term a stop word when the share is
// a sensible one.
type docFreq struct {
	rows [2][sketchWidth]uint32
	docs int
	// pending is the change of the mutation under way, applied when it
	// commits.
	pending struct {
		add, remove []uint32
		docs        int
	}
}

const sketchWidth = 1 << 18

func (d *docFreq) slots(h uint32) (int, int) {
	return int((h * 0x9E3779B1) >> 14), int(((h ^ 0x5BD1E995) * 0x85EBCA6B) >> 14)
}

func (d *docFreq) change(terms []uint32, delta uint32) {
	for _, h := range terms {
		i, j := d.slots(h)
		d.rows[0][i] += delta
		d.rows[1][j] += delta
	}
}

// count is the sketch's estimate of term h's document frequency.
func (d *docFreq) count(h uint32) uint32 {
	i, j := d.slots(h)
	return min(d.rows[0][i], d.rows[1][j])
}

// newDocFreq counts the terms of every stored document, or returns nil
// when o does not ask for stop words.
func newDocFreq(s store.Backend, o Options) (*docFreq, error) {
	if o.BooleanStopShare == 0 {
		return nil, nil
	}
	d := &docFreq{}
	err := s.Read(func(st store.Txn) error {
		return eachDoc(st, func(_ string, _ *store.Record, sig similarity.Signature) error {
			d.change(sig.TermHashes(), 1)
			d.docs++
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("dedupfilter: counting terms: %w", err)
	}
	return d, nil
}

// stopper returns the stop-word test of the counts: a term in more than
// share of the documents, once there are minDocs. The counts change, and
// are read, under the Filter's lock; Compare, which runs without it, is
// not given the test.
func (d *docFreq) stopper(share float64, minDocs int) func(uint32) bool {
	return func(h uint32) bool {
		return d.docs >= minDocs && float64(d.count(h)) > share*float64(d.docs)
	}
}

// stage records the change a mutation makes: the terms of the stored
// version it replaces or removes (old, read from st before the mutation
// deletes its signature) leave, those of sig, unless nil, come.
func (d *docFreq) stage(st store.Txn, old *store.Record, sig *similarity.Signature) error {
	if d == nil {
		return nil
	}
	p := &d.pending
	p.add, p.remove, p.docs = nil, nil, 0
	if old != nil {
		_, os, err := readSignature(st, old.Seq)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("dedupfilter: %w", err)
		}
		if err == nil {
			p.remove = os.TermHashes()
			p.docs--
		}
	}
	if sig != nil {
		p.add = sig.TermHashes()
		p.docs++
	}
	return nil
}

// commit applies the staged change; the caller calls it once the mutation
// committed.
func (d *docFreq) commit() {
	if d == nil {
		return
	}
	p := &d.pending
	d.change(p.remove, ^uint32(0)) // minus one: wraps like the counts it undoes
	d.change(p.add, 1)
	d.docs += p.docs
	p.add, p.remove, p.docs = nil, nil, 0
}
