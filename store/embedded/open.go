package embedded

import (
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/bleve-dedup/bleve-dedup/internal/badgeropen"
)

// openDB opens the Badger store of opts (see package badgeropen). A store
// another process holds fails with ErrLocked, naming that process.
func openDB(opts Options) (*badger.DB, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	db, err := badgeropen.Open(opts.badgerOptions())
	if err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock") {
		return nil, fmt.Errorf("embedded: %s is open in %s: %w", opts.Dir, badgeropen.HolderOf(opts.Dir), ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", opts.Dir, err)
	}
	return db, nil
}
