package dedupfilter

import (
	"bytes"
	"errors"
	"fmt"
)

// IndexPayloads has a Filter leave the payloads of the documents in the
// search index to it, when the search index keeps what it is given (see
// Filter.KeepPayloadsIn).
type IndexPayloads struct {
	// Read returns id's payload as the search index holds it, or an
	// error wrapping ErrNotFound when it holds no such document.
	Read func(id string) ([]byte, error)
	// Journal is the directory of the journal that keeps the payloads of
	// documents on their way to the search index.
	Journal string
	// Sync: each journal record is synced to disk, as the store's writes
	// are.
	Sync bool
	// Canonical, when set, returns a payload as Read gives it back once
	// the search index holds it (the same fields, written alike). A
	// document added again whose payload has the canonical form of the
	// search index's, and that stays where it was, is not written to the
	// search index again, as with payloads in the store (see Decision).
	Canonical func(payload []byte) ([]byte, error)
}

// indexPayloads is an IndexPayloads at work.
type indexPayloads struct {
	read      func(id string) ([]byte, error)
	canonical func(payload []byte) ([]byte, error)
	j         *journal
}

// KeepPayloadsIn has the filter keep an empty payload in the store for
// each document it puts in the search index, reading the payload back
// from there (Doc, the search-index operations of later mutations,
// Replay) through p.Read: a search index that stores every field of what
// it is given (bleve with a mapping that stores its fields) holds the text
// already, and the store need not keep another copy. A document that
// leaves the search index but stays in the store (a copy suppressed, a
// representative replaced) gets its payload back in the store, read from
// the search index before the operation that removes it.
//
// Between a decision and Applied the payload is kept in a journal in
// p.Journal, so that Replay can write it after a crash. A payload of
// another filter's store, or one written before this was called, is read
// as it was stored.
//
// Call it before any other method, Replay first among them, and on every
// open once a store was written so: the store's empty payloads are read
// as empty without it. Payloads must not be empty.
func (f *Filter) KeepPayloadsIn(p IndexPayloads) error {
	if p.Read == nil || p.Journal == "" {
		return fmt.Errorf("dedupfilter: KeepPayloadsIn needs Read and Journal: %w", ErrInvalidOptions)
	}
	j, err := openJournal(p.Journal, p.Sync, f.backend.ReadOnly())
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inIndex != nil {
		return errors.Join(fmt.Errorf("dedupfilter: KeepPayloadsIn called twice: %w", ErrInvalidOptions), j.close())
	}
	f.inIndex = &indexPayloads{read: p.Read, canonical: p.Canonical, j: j}
	return nil
}

// payloadReader reads the payloads a store holds (a store.Txn).
type payloadReader interface {
	Payload(id string) ([]byte, error)
}

// payload reads id's payload: from st, or where it is kept instead of an
// empty one in st (KeepPayloadsIn).
func (f *Filter) payload(st payloadReader, id string) ([]byte, error) {
	p, err := st.Payload(id)
	if err != nil || len(p) > 0 || f.inIndex == nil {
		return p, err
	}
	p, _, err = f.inIndex.payload(id)
	return p, err
}

// unchanged reports whether payload is id's payload as stored: in the
// store, the journal, or the search index (compared in its canonical
// form).
func (f *Filter) unchanged(st payloadReader, id string, payload []byte) (bool, error) {
	prev, err := st.Payload(id)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	case len(prev) > 0 || f.inIndex == nil:
		return bytes.Equal(prev, payload), nil
	}
	ip := f.inIndex
	prev, fromIndex, err := ip.payload(id)
	if err != nil {
		return false, err
	}
	if fromIndex && ip.canonical != nil {
		if payload, err = ip.canonical(payload); err != nil {
			return false, fmt.Errorf("payload of %q: %w", id, err)
		}
	}
	return bytes.Equal(prev, payload), nil
}

// payload reads the payload of a document the store keeps in the search
// index: the journal's, while its write may not have been made, else the
// search index's (fromIndex). The document not being there is the store
// and the search index disagreeing, not a document unknown.
func (ip *indexPayloads) payload(id string) (p []byte, fromIndex bool, err error) {
	if p, ok, err := ip.j.payload(id); ok || err != nil {
		return p, false, err
	}
	p, err = ip.read(id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, true, fmt.Errorf("payload of %q: kept in the search index, which does not hold the document: %v: %w", id, err, ErrCorrupt)
	case err != nil:
		return nil, true, fmt.Errorf("payload of %q, from the search index: %w", id, err)
	case len(p) == 0:
		return nil, true, fmt.Errorf("payload of %q: the search index gave an empty one: %w", id, ErrCorrupt)
	}
	return p, true, nil
}

// handOver moves the payloads of the mutation's ops: a document going to
// the search index leaves an empty payload in the store and its payload
// in the journal; one leaving it while it stays in the store gets its
// payload back there. The journal is written before the store commits.
func (w *mutation) handOver(ip *indexPayloads) error {
	var in []Op
	for _, op := range w.ops {
		switch op.Kind {
		case OpIndex:
			in = append(in, op)
			if err := w.st.PutPayload(op.ID, nil); err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
		case OpDelete:
			p, err := w.st.Payload(op.ID)
			if errors.Is(err, ErrNotFound) || err == nil && len(p) > 0 {
				continue // gone from the store too, or kept there already
			}
			if err == nil {
				p, _, err = ip.payload(op.ID)
			}
			if err == nil {
				err = w.st.PutPayload(op.ID, p)
			}
			if err != nil {
				return fmt.Errorf("dedupfilter: %w", err)
			}
		}
	}
	return ip.j.append(w.seq, in)
}

// inIndexAlready leaves an empty payload in the store for document id,
// which the search index holds as it was given: a decision that found it
// unchanged.
func (w *mutation) inIndexAlready(id string) error {
	if w.f.inIndex == nil {
		return nil
	}
	if err := w.st.PutPayload(id, nil); err != nil {
		return fmt.Errorf("dedupfilter: %w", err)
	}
	return nil
}
