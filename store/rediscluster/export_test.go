package rediscluster

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/bleve-dedup/bleve-dedup/store"
)

// Internals for the external tests.

func (s *Store) Client() redis.UniversalClient { return s.rdb }
func (s *Store) Key(parts ...string) string    { return s.k(parts...) }
func (s *Store) Token() string                 { return s.token }

// JournalOf is the journal tx's writes would make, unwritten.
func (s *Store) JournalOf(tx store.Txn) []byte { return s.journal(tx.(*txn).w) }

// EmptyJournal is the journal of no writes.
func (s *Store) EmptyJournal() []byte { return s.journal(newWrites()) }

// Forget runs the script that deletes the journal if s wrote it.
func (s *Store) Forget(ctx context.Context) error {
	return forgetScript.Run(ctx, s.rdb, []string{s.k("journal")}, s.journalHead()).Err()
}

const Format = redisFormat
