package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"

	"github.com/bleve-dedup/bleve-dedup/indexer"
	"github.com/bleve-dedup/bleve-dedup/internal/jsonfile"
)

// An index adopted with "bleve-dedup adopt" is a plain bleve index with
// the filter's store beside it. The store records the settings it was
// made with (indexer.SavedOptions), but not the fields the documents were
// read from, which every later open (indexer.Wrap) needs: adopt records
// them in a file of the command's own in the store's directory, and the
// commands that read the index (dups, search, serve, recluster) open it
// with them.

// adoptFile is that file, in the store's directory (for a redis:// store,
// in the directory of this process' own part).
const adoptFile = "adopt.json"

// adoptFormat is the version of adoptFile's layout.
const adoptFormat = 1

// adoptRecord is adoptFile's content.
type adoptRecord struct {
	Format int `json:"format"`
	// Index is the bleve index's absolute path, and Name the path adopt
	// was given, which the store records as the index it was made for
	// (bleve's Index.Name): the commands give the index that name again
	// however it is reached now.
	Index string `json:"index"`
	Name  string `json:"name"`
	// The fields, as adopt's --text-field, --html-field, --title-field and
	// --url-field name them.
	TextFields []string `json:"text_fields,omitempty"`
	HTMLField  string   `json:"html_field,omitempty"`
	TitleField string   `json:"title_field,omitempty"`
	URLField   string   `json:"url_field,omitempty"`
}

// sameFields reports whether r and o name the same fields.
func (r adoptRecord) sameFields(o adoptRecord) bool {
	return slices.Equal(r.TextFields, o.TextFields) && r.HTMLField == o.HTMLField &&
		r.TitleField == o.TitleField && r.URLField == o.URLField
}

// flags are the fields as adopt's flags say them.
func (r adoptRecord) flags() string {
	var fs []string
	for _, f := range r.TextFields {
		fs = append(fs, "--text-field "+f)
	}
	for _, f := range []struct{ name, v string }{{"html-field", r.HTMLField}, {"title-field", r.TitleField}, {"url-field", r.URLField}} {
		if f.v != "" {
			fs = append(fs, "--"+f.name+" "+f.v)
		}
	}
	return strings.Join(fs, " ")
}

// apply sets the fields of o.
func (r adoptRecord) apply(o *indexer.Options) {
	o.TextFields, o.HTMLField, o.TitleField, o.URLField = r.TextFields, r.HTMLField, r.TitleField, r.URLField
}

// readAdoptRecord reads adoptFile in dir; false when there is none.
func readAdoptRecord(dir string) (adoptRecord, bool, error) {
	var r adoptRecord
	path := filepath.Join(dir, adoptFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, false, fmt.Errorf("%s: %w", path, err)
	}
	if r.Format != adoptFormat {
		return r, false, fmt.Errorf("%s: format %d, this version reads %d", path, r.Format, adoptFormat)
	}
	return r, true, nil
}

// writeAdoptRecord writes r in dir, atomically: a reader sees the old file
// or the new one.
func writeAdoptRecord(dir string, r adoptRecord) error {
	r.Format = adoptFormat
	if err := jsonfile.Write(filepath.Join(dir, adoptFile), r); err != nil {
		return fmt.Errorf("record the fields: %w", err)
	}
	return nil
}

// isPlainBleve reports whether dir holds a bleve index at its top (where
// an index of bleve-dedup's own keeps it in DIR/bleve).
func isPlainBleve(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "index_meta.json"))
	return err == nil
}

// isShared reports whether store names a shared store rather than a
// directory.
func isShared(store string) bool { return strings.HasPrefix(store, "redis://") }

// ownStore is the directory adopt keeps the store of the index in dir in
// by default (or, with a redis:// store, its process-local part).
func ownStore(dir string) string { return filepath.Clean(dir) + ".dedup" }

// adoptedStore returns the directory holding the settings and adoptFile of
// the store of the adopted index in dir: the --store directory when one
// is given, else the one beside the index.
func adoptedStore(dir, store string) string {
	if store != "" && !isShared(store) {
		return store
	}
	return ownStore(dir)
}

// sameDir reports whether a and b name one existing directory.
func sameDir(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// checkRecorded refuses a store recorded as another index's, and returns
// the name the store knows the index in dir by. An index moved or copied
// with its store (the recorded path gone) is taken as the one recorded.
func checkRecorded(dir, storeDir string, r adoptRecord) (string, error) {
	if _, err := os.Stat(r.Index); err == nil && !sameDir(r.Index, dir) {
		return "", fmt.Errorf("--index %s: the store %s was adopted for the index %s, not this one: give --store the store of %s (by default %s beside it)",
			dir, storeDir, r.Index, dir, ownStore(dir))
	}
	return r.Name, nil
}

// boltWait bounds the wait for a bleve index another process holds: bleve
// waits on its file lock for ever by default (its read_only open too).
const boltWait = "2s"

// openBleve opens the plain bleve index in dir, read-only if asked, and
// names it name (when not "") for the store's record of it.
func openBleve(dir, name string, readOnly bool) (bleve.Index, error) {
	config := map[string]any{"bolt_timeout": boltWait}
	if readOnly {
		config["read_only"] = true
	}
	idx, err := bleve.OpenUsing(dir, config)
	switch {
	// bbolt's error past bolt_timeout is a bare "timeout" (go.etcd.io/bbolt
	// ErrTimeout; the module is not one this command imports).
	case err != nil && err.Error() == "timeout":
		return nil, fmt.Errorf("--index %s: the bleve index is held by another process (waited %s): reach it through that process' server (--server URL of bleve-dedup serve), or stop it first: %w", dir, boltWait, indexer.ErrLocked)
	case err != nil:
		verb := "write"
		if readOnly {
			verb = "read"
		}
		return nil, accessError(dir, fmt.Errorf("--index %s: %w", dir, err), verb)
	}
	if name != "" {
		// Wrap refuses a store made for an index of another name, and
		// bleve names an index by the path it was opened with: the path
		// adopt was given stands for this one, however it is reached now
		// (another working directory, a trailing slash).
		idx.SetName(name)
	}
	return idx, nil
}

// adoptedOptions returns the options to Wrap the adopted index in dir
// with, and its record: the store's own settings and the fields adopt
// recorded, the store being the --store given (store, "" when not) or the
// store beside the index. Without a store, or a record, it says what to
// do.
func adoptedOptions(dir, store string) (indexer.Options, adoptRecord, error) {
	sdir := adoptedStore(dir, store)
	r, ok, err := readAdoptRecord(sdir)
	if err != nil {
		return indexer.Options{}, r, accessError(sdir, err, "read")
	}
	raw, err := indexer.SavedOptions(sdir)
	if err != nil {
		return raw, r, accessError(sdir, err, "read")
	}
	o := filled(raw)
	adopt := fmt.Sprintf("bleve-dedup adopt --index %s --text-field F|--html-field F [--title-field F] [--url-field F]", dir)
	if store != "" {
		adopt += " --store " + store
	}
	switch {
	case !ok && raw.Filter == nil: // (SavedOptions' zero Options: no settings there)
		where := "beside it (" + sdir + ")"
		if store != "" && !isShared(store) {
			where = "in --store " + sdir
		}
		return o, r, fmt.Errorf("--index %s: a plain bleve index, with no bleve-dedup store %s: bring its documents under the filter with %s", dir, where, adopt)
	case !ok:
		// A store made by an adopt of before adoptFile, or by a program's
		// indexer.Wrap: its fields are nowhere to be read.
		return o, r, fmt.Errorf("--index %s: its store %s does not say which fields the documents were adopted from (%s): run the same bleve-dedup adopt again (%s): it records them, and adopts nothing twice",
			dir, sdir, filepath.Join(sdir, adoptFile), adopt)
	}
	switch {
	case store != "":
		o.Store = store
	case o.Store == "": // the embedded store
		o.Store = sdir
	}
	if isShared(o.Store) {
		o.LocalDir = sdir
	}
	r.apply(&o)
	return o, r, nil
}

// openAdopted opens the adopted index in dir with the store given (store;
// "" for its own) and the fields adopt recorded, returning the record:
// read-only when this process may not write the index or the store (as
// indexFlags.open opens an index of bleve-dedup's own), unless adjust,
// when given, sets the options otherwise (writable: whether it may).
func openAdopted(dir, store string, adjust func(o *indexer.Options, writable bool) error) (*indexer.Index, adoptRecord, error) {
	o, r, err := adoptedOptions(dir, store)
	if err != nil {
		return nil, r, err
	}
	sdir := adoptedStore(dir, store)
	name, err := checkRecorded(dir, sdir, r)
	if err != nil {
		return nil, r, err
	}
	writable := canWrite(dir) && canWrite(sdir)
	o.ReadOnly = !writable
	if adjust != nil {
		if err := adjust(&o, writable); err != nil {
			return nil, r, err
		}
	}
	idx, err := openBleve(dir, name, o.ReadOnly)
	if err != nil {
		return nil, r, err
	}
	verb := "write"
	if o.ReadOnly {
		verb = "read"
	}
	ix, err := indexer.Wrap(idx, o)
	if err != nil {
		return nil, r, errors.Join(accessError(sdir, err, verb), idx.Close())
	}
	return ix, r, nil
}

// checkFields refuses fields the index idx has none of, naming the fields
// it has: else each of its documents would be reported missing one by
// one. An index without documents has no fields yet and passes.
func checkFields(idx bleve.Index, dir string, r adoptRecord) error {
	n, err := idx.DocCount()
	if err != nil || n == 0 {
		return err
	}
	all, err := idx.Fields()
	if err != nil {
		return fmt.Errorf("--index %s: its fields: %w", dir, err)
	}
	// Fields starting with "_" are bleve's own (the composite _all).
	has := slices.DeleteFunc(slices.Clone(all), func(f string) bool { return strings.HasPrefix(f, "_") })
	slices.Sort(has)
	var bad []string
	check := func(flag, f string) {
		if f == "" || slices.Contains(has, f) {
			return
		}
		msg := fmt.Sprintf("%s (--%s %s", f, flag, f)
		for _, h := range has {
			if strings.EqualFold(h, f) {
				msg += "; field names are case-sensitive: " + h + "?"
				break
			}
		}
		bad = append(bad, msg+")")
	}
	for _, f := range r.TextFields {
		check("text-field", f)
	}
	check("html-field", r.HTMLField)
	check("title-field", r.TitleField)
	check("url-field", r.URLField)
	if len(bad) == 0 {
		return nil
	}
	const listed = 30
	list := strings.Join(has[:min(len(has), listed)], ", ")
	if len(has) > listed {
		list += fmt.Sprintf(", ... (%d more)", len(has)-listed)
	}
	if list == "" {
		list = "none"
	}
	noun := "field"
	if len(bad) > 1 {
		noun = "fields"
	}
	return fmt.Errorf("--index %s has no %s %s; its fields: %s", dir, noun, strings.Join(bad, ", "), list)
}
