// Package rediscluster is the shared store: several processes, each with
// a search index of its own, decide against one state kept in a Redis
// Cluster (or one Redis server), at the same time, with no lock, lease or
// transaction that every decision passes through. Keys, under the
// store's prefix P:
//
//	P:p:{<f>}       posting family f of 1024: buckets of packed postings (8 bytes: the key's
//	                32-bit fingerprint, the sequence number), grown by linear hashing; and
//	                the records of the ids whose hash falls in f, field "d<id>"
//	                (store/internal/codec's encoding, without posting keys)
//	P:s:{<g>}       the signatures of document versions 64g to 64g+63, field seq mod 64
//	                (package dedupfilter's encoding: the id first)
//	P:c:{<n>}       cluster n, once it has two members: its representative and members
//	                (whether each is indexed, and what promotion and Replace weigh);
//	                once its last member, or its founder alone, left: a mark, field "x"
//	{P}:seq         sequence numbers (INCRBY), which cluster numbers share
//	{P}:rank        ranks (INCRBY, in one script with {P}:nums)
//	{P}:nums        the numbered batches: first sequence number, size, first rank
//	{P}:clusters    the clusters with a hash, by number
//	P:format        the key layout's version
//
// Records and signatures are fields of hashes rather than keys of their
// own: a Redis key costs some 50 bytes of its own (its entry, object and
// name) where a hash field costs its entry, and a value this long is
// past a hash's compact encoding anyway; the hashes they share are the
// posting families, which every store has, and one hash per 64
// consecutive sequence numbers.
//
// Payloads, pending search-index operations and other packages' keys
// stay in each process' own store (Local: package embedded's Local):
// they concern its own search index.
//
// # Decisions in parallel
//
// A Redis Cluster runs a transaction or a script only on the keys of one
// hash slot, and a decision reads keys all over the key space. So
// decisions are ordered without a lock, by numbers (store.Sequencer):
//
//  1. Post: a batch takes a block of sequence numbers (INCRBY), writes its
//     documents' signatures under them, and appends them to their
//     posting lists.
//  2. Number: then, in one script on the store's own slot, it takes a
//     block of ranks (INCRBY) and records which sequence numbers they
//     rank ({P}:nums).
//  3. Decide: each document is decided against the documents ranked
//     below it, and only those: its candidates are the postings whose
//     sequence numbers a numbered batch ranks lower.
//
// Why a document sees every document ranked below it: if B ranks after
// A, B's Number ran after A's (the rank counter is one key: its INCRBYs
// are totally ordered); A's postings were written, and acknowledged,
// before A's Number was sent; B reads its lists after its own Number
// returned. So every write of A's postings happened before every read of
// B's, and each list is one key, which Redis serves in order: B's reads
// return A's postings. A posting whose batch is not numbered when B
// reads {P}:nums was not numbered before B's, so it ranks after B and is
// rightly left out: whatever B reads beyond its rank, it ignores.
//
// The outcome is the serial order of the ranks: each document is
// compared with exactly the documents ranked before it, as if the
// documents had been decided one at a time in rank order. Two
// near-duplicates indexed at the same moment by two processes are never
// both admitted as representatives: one ranks after the other, and the
// later one's candidates include the earlier one.
//
// Nobody waits. What a document's decision needs of a lower-ranked
// candidate is its signature (written before it was numbered) and, for
// the candidate it matches, that candidate's cluster. If the match's
// process has not recorded its decision yet (it is slow, paused, throttled
// to an eighth of a core, or dead), the decider works it out itself from
// what the match posted: the match's own decision is a function of the
// documents ranked below it, which are all readable, so it is the same
// wherever it is made, and going down the ranks it ends. Nothing depends
// on another process getting CPU on time: a slow process is slow, never
// wrong and never in anyone's way.
//
// Clusters change by scripts on one cluster's slot (joinScript,
// leaveScript), one step each: joining, and Replace's comparison with the
// representative; a representative leaving and the earliest member (or
// the one Replace prefers) taking its place. A cluster is numbered as its
// founder, so two processes working out the same founding name the same
// cluster; a joiner whose match founded a cluster alone (which has no
// hash) makes its hash with the founder in it. A founder can leave its
// cluster (its page re-added or deleted) after a joiner read it there and
// before the joiner's join: the leave marks the cluster on its key (a
// hash with only "x"), and the join, on the same key, then makes the
// cluster again with the joiner alone rather than bringing the founder
// back into a cluster it left (it would be listed in two). Whether a
// member is in the search index is kept with its cluster, so promoting or
// demoting another process' document is one write where the decision is
// made.
//
// What truly conflicts still goes one at a time: the joins and leaves of
// one cluster (Redis runs one script at a time on a slot), and the
// decisions of one process (the filter's lock holds only while a decision
// is written; planning — reading candidates and verifying them — runs
// outside it on every core).
//
// # Faults
//
// Every write is idempotent, and a document is decided once its record
// is written (its cluster's hash and its postings before it). A process
// that dies leaves:
//   - postings and signatures of a batch not numbered: their sequence
//     numbers never rank, so they are ignored;
//   - numbered documents without a record: any process that matches one
//     works out its decision itself, the same one, so nobody waits for
//     the dead; its own process, run again, decides them again (they are
//     not known to the store), the same way, and writes them;
//   - a cluster joined without the record written: joining again is a
//     no-op.
//
// The process' local writes (payloads, pending search-index operations,
// other packages' keys) commit before the shared ones: after a crash
// between the two, the local operations are replayed into its search
// index at the next open and the page, not known to the shared store, is
// decided again when the run is repeated. Redis replicates
// asynchronously, and a master that fails over loses what its replica had
// not received: a counter's step (numbers handed out twice), a posting, a
// cluster's member behind a record written elsewhere. So each step of a
// decision (a counter, Post's writes, Number, a Join or Leave, a batch's
// flush) is made durable before the next starts: each master's share goes
// in one pipeline on one connection, and WAIT holds the step until the
// master's replica has it (a master without a replica is not waited for).
// A step cut off by a failover fails the client; repeating the run redoes
// the pages the store does not know. A step sent on a stale slot map (a
// failover or a resharding since go-redis last read it) is not cut off:
// what a node answers MOVED, ASK, TRYAGAIN, CLUSTERDOWN or LOADING it did
// not execute, and the step sends it again where, or once, it is served. A page numbered but not decided for
// an error stays numbered (other processes may have decided against it)
// and is decided again, the same way, when the run is repeated.
//
// # Caveats
//
// The serial order holds for documents added; a re-added or deleted
// document's decision is its process' own, and a document ranked beside
// it may see its old version. Every process of a store must run the same
// filter options. Sequence numbers are 32 bits in a posting: a store
// takes about 4 billion document versions (store.ErrFull past them).
// Regrouping (package recluster) writes clusters with low-level
// operations: run it while no process indexes. A posting family holds a
// 1,024th of the postings and of the records: about 0.5 GB a family at a
// billion pages, which resharding moves as one key.
package rediscluster
