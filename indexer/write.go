package indexer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/dedupfilter"
	"github.com/bleve-dedup/bleve-dedup/store"
	"github.com/blevesearch/bleve/v2/document"
)

// replay makes bleve agree with the store after a crash: each document a
// pending write names is written as the store holds it now
// (dedupfilter.Filter.Replay).
func (ix *engine) replay() error {
	n, err := ix.filter.Replay(ix.overwrite)
	if err != nil {
		return fmt.Errorf("indexer: repairing pending writes: %w", err)
	}
	ix.repaired = n
	return nil
}

func validate(d Document) error {
	switch {
	case d.ID == "":
		return fmt.Errorf("indexer: empty id: %w", ErrInvalidDocument)
	case len(d.ID) > dedupfilter.MaxIDBytes:
		return fmt.Errorf("indexer: id of %d bytes (%.40q…), at most %d: %w", len(d.ID), d.ID, dedupfilter.MaxIDBytes, ErrInvalidDocument)
	}
	return nil
}

// staged is a document on its way into the index: its bleve body and
// store payload made (Doc, with its paragraphs and tag sequence), its
// site plan and features made by commit.
type staged struct {
	dedupfilter.Item
	body map[string]any // Doc.Payload decoded, for bleve
	// urlKey is the key of the URL's owner (urlKey), made once.
	urlKey []byte
	err    error
	// unchanged: the store holds the document with the same content hash
	// already (IndexPages skips it); update: it holds another version.
	unchanged, update bool
	truncated         bool // text past Options.MaxTextBytes left out
	// reply, when set, is told the decision (see job).
	reply func(dedupfilter.Decision, error)
}

// stage makes d's bleve body (in the Index's fields) and store payload;
// k is the key of its URL's owner (urlKey).
func (ix *engine) stage(d Document, k []byte) (staged, error) {
	if err := validate(d); err != nil {
		return staged{}, err
	}
	paras, truncated := capText(d.Paragraphs, ix.maxText)
	d.Paragraphs = paras
	body, err := ix.body(d)
	if err != nil {
		return staged{}, err
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return staged{}, fmt.Errorf("indexer: %s: fields: %w", d.ID, err)
	}
	return staged{Item: dedupfilter.Item{Doc: dedupfilter.Doc{ID: d.ID, URL: d.URL, Title: d.Title, Payload: payload, Time: d.Time, Hash: d.Hash},
		Paras: d.Paragraphs, Tags: d.Tags}, body: body, truncated: truncated, urlKey: k}, nil
}

// capText returns the paragraphs within max bytes in all (max <= 0: no
// cap), the last one cut at a character boundary, and whether any text
// was left out.
func capText(ps []string, max int) ([]string, bool) {
	if max <= 0 {
		return ps, false
	}
	n := 0
	for i, p := range ps {
		if n+len(p) <= max {
			n += len(p)
			continue
		}
		kept := ps[:i:i]
		if cut := strings.ToValidUTF8(p[:max-n], ""); cut != "" {
			kept = append(kept, cut)
		}
		return kept, true
	}
	return ps, false
}

func joinParagraphs(ps []string) string {
	n := 0
	for _, p := range ps {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for i, p := range ps {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, p...)
	}
	return string(b)
}

// commit decides docs, in order, and writes bleve accordingly, returning
// once bleve has them.
func (ix *engine) commit(docs []staged) ([]dedupfilter.Decision, error) {
	return ix.commitThen(docs, nil)
}

// commitThen is commit, but when applied is not nil it returns once the
// decisions are made and leaves the bleve write to a goroutine, which
// calls applied with its error: the next batch is decided while bleve
// indexes this one. Bleve writes still happen in the order of the
// decisions (applyMu is taken before the decision lock is let go), and the
// store holds them as pending until they are done, so a crash in between
// is repaired at Open as before. applied is called exactly once; docs
// must not be reused until it is.
func (ix *engine) commitThen(docs []staged, applied func(error)) ([]dedupfilter.Decision, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.readOnly {
		if applied != nil {
			applied(nil)
		}
		return nil, fmt.Errorf("indexer: %w", ErrReadOnly)
	}
	decs, ops, decideErr := ix.decideBatch(docs)
	// Ops of decisions already committed must reach bleve even when a later
	// Add failed, or the stores would disagree until the next Open.
	if applied == nil {
		if err := ix.apply(ops, docs); err != nil {
			return decs, errors.Join(decideErr, err)
		}
		return decs, decideErr
	}
	// This batch's documents are analysed for bleve, and written, while
	// the next batch is decided; analysed once bleve has the one before,
	// so that one batch of analysed documents (their term vectors, many
	// times their text) is held at a time, as bleve's own Batch holds.
	ix.applyMu.Lock()
	go func() {
		bdocs, err := ix.bleveDocs(ops, docs)
		if err == nil {
			err = ix.write(ops, bdocs)
		}
		ix.applyMu.Unlock()
		applied(err)
	}()
	return decs, decideErr
}

// decideBatch makes the decisions on docs (all indexed, without the
// filter) and returns them with the bleve operations they call for.
func (ix *engine) decideBatch(docs []staged) ([]dedupfilter.Decision, []dedupfilter.Op, error) {
	if ix.noDedup {
		decs := make([]dedupfilter.Decision, 0, len(docs))
		ops := make([]dedupfilter.Op, 0, len(docs))
		for _, d := range docs {
			op := dedupfilter.Op{Kind: dedupfilter.OpIndex, ID: d.Doc.ID, Cluster: d.Doc.ID, Payload: d.Doc.Payload}
			decs = append(decs, dedupfilter.Decision{ID: d.Doc.ID, Cluster: d.Doc.ID, Representative: d.Doc.ID, Ops: []dedupfilter.Op{op}})
			ops = append(ops, op)
		}
		return decs, ops, nil
	}
	items := make([]*dedupfilter.Item, len(docs))
	for i := range docs {
		items[i] = &docs[i].Item
	}
	decs, ops, err := ix.decider.Decide(items, func(kv store.KV, i int) error {
		return setURLOwner(kv, docs[i].urlKey, docs[i].Doc.ID)
	})
	switch {
	case err != nil && ix.shared != "":
		err = fmt.Errorf("indexer: store %s: %w", ix.shared, err)
	case err != nil:
		err = fmt.Errorf("indexer: %w", err)
	}
	return decs, ops, err
}

// paragraphs returns the main text a stored payload holds, as paragraphs
// (for analysing a document again), read from the Index's fields.
func (ix *engine) paragraphs(payload []byte) ([]string, error) { return ix.text(payload) }

// finishStale re-decides the stale pages a crash left (see
// dedupfilter.Decider.FinishStale).
func (ix *engine) finishStale() error {
	ops, err := ix.decider.FinishStale()
	if err == nil {
		err = ix.apply(ops, nil)
	}
	if err != nil {
		return fmt.Errorf("indexer: re-deciding pages a crash left stale: %w", err)
	}
	return nil
}

// apply writes ops to bleve in one batch and clears their pending marks.
// The bodies of prep stand in for payloads they encode, sparing a decode.
func (ix *engine) apply(ops []dedupfilter.Op, prep []staged) error {
	docs, err := ix.bleveDocs(ops, prep)
	if err != nil {
		return err
	}
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	return ix.write(ops, docs)
}

// write is apply with the documents from bleveDocs, and applyMu held.
func (ix *engine) write(ops []dedupfilter.Op, docs []*document.Document) error {
	if err := ix.writeBleve(ops, docs); err != nil {
		return err
	}
	if ix.noDedup || len(ops) == 0 {
		return nil
	}
	if err := ix.filter.Applied(ops...); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	return nil
}

// overwrite writes ops to bleve in one batch, leaving the pending marks
// to its caller (replay).
func (ix *engine) overwrite(ops []dedupfilter.Op) error {
	docs, err := ix.bleveDocs(ops, nil)
	if err != nil {
		return err
	}
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	return ix.writeBleve(ops, docs)
}

// writeBleve writes ops to bleve in one batch, with the documents from
// bleveDocs; the caller holds applyMu.
func (ix *engine) writeBleve(ops []dedupfilter.Op, docs []*document.Document) error {
	if len(ops) == 0 {
		return nil
	}
	b := ix.bleve.NewBatch()
	for i, op := range ops {
		switch {
		case docs[i] != nil:
			if err := b.IndexAdvanced(docs[i]); err != nil {
				return fmt.Errorf("indexer: %s: %w", op.ID, err)
			}
		case op.Kind == dedupfilter.OpDelete:
			b.Delete(op.ID)
		}
	}
	if err := ix.bleve.Batch(b); err != nil {
		return fmt.Errorf("indexer: bleve batch: %w", err)
	}
	return nil
}

// Delete removes id from bleve and the store, and repairs its cluster (a
// suppressed member may be promoted into bleve in its place). It returns
// an error wrapping dedupfilter.ErrNotFound for an unknown id.
func (ix *engine) delete(id string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.readOnly {
		return fmt.Errorf("indexer: delete %s: %w", id, ErrReadOnly)
	}
	e, _ := ix.filter.Meta(id)
	res, err := ix.filter.Delete(id)
	if err != nil {
		return fmt.Errorf("indexer: delete %s: %w", id, err)
	}
	// A crash before this leaves the URL naming a deleted document, which
	// a later page of that URL simply takes over.
	if err := ix.local.Update(func(kv store.KV) error { return clearURLOwner(kv, urlKey(e.URL, ""), id) }); err != nil {
		return fmt.Errorf("indexer: delete %s: %w", id, err)
	}
	return ix.apply(res.Ops, nil)
}
