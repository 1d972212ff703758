// Package rediscluster is the shared store: several processes, each with
// a search index of its own, decide against one state kept in a Redis
// Cluster (or one Redis server). Keys, under the store's prefix P:
//
//	P:d:<id>        record (string, as d/<id> in Badger)
//	P:s:<seq>       id and signature of document seq (string)
//	P:b:{<n>}       posting lists of bucket n of 1024 (hash: field <key
//	                hex>, value the same encoding as in Badger), so that a
//	                batch reads and writes them with one HMGET and one
//	                HSET a bucket, not a command a list
//	P:format        the key layout's version
//	P:c:<cluster>   representative's id (string)
//	P:m:<cluster>   members (set)
//	P:clusters      cluster ids, scored by their number (sorted set)
//	P:seq, P:cluster  counters (INCR)
//	P:lease         the decision lease: its holder's token, with an expiry
//	P:journal       the writes of a commit not yet applied
//
// Payloads and pending search-index operations stay in each process'
// local embedded store (package embedded's Local): they concern its own
// search index.
//
// # One truth with several writers
//
// A Redis Cluster runs a transaction or a
// script on the keys of one hash slot only, and a decision reads and
// writes keys all over the key space, so the store serialises decisions
// with a lease: one key, taken with SET NX PX, held by one process at a
// time, for one mutation or a batch of them (Store.Exclusive). Every
// decision reads the state the previous holders left and writes before it
// lets go, so the outcome of concurrent indexers is the outcome of some
// serial order of their documents (the order of their leases), and two
// near-duplicates indexed at the same moment by two processes cannot both
// be admitted as representatives: the later one sees the earlier one's
// postings. Sequence numbers are taken under the lease, so they follow
// that order too.
//
// # Faults
//
// A commit first writes its whole write set as one value
// (P:journal), then applies it, then deletes the journal; the writes are
// idempotent (SET, DEL, SADD, SREM, ZADD, ZREM). A holder that dies leaves
// its lease to expire (LeaseTTL), and the next holder replays the journal
// it finds, so a commit cut off half way is completed: nothing half-done
// skews later decisions. The process' local writes (payloads, pending ops)
// commit before the shared ones: after a crash between the two, the local
// pending ops are replayed into its search index at the next open and the
// page, not known to the shared store, is decided again when the run is
// repeated. A holder checks that the lease is still its own before each
// commit (a holder paused past the expiry fails with ErrLeaseLost instead
// of writing over the next one). A Redis master that fails over loses the writes it had not
// yet replicated (Redis replicates asynchronously): the client fails, and
// repeating the run redoes the pages the store does not know.
package rediscluster
