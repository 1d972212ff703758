package store

import (
	"errors"
	"fmt"
	"time"
)

// Member is a document as a cluster operation weighs it.
type Member struct {
	ID    string
	Seq   uint64 // the version's number; the lower, the earlier
	Time  time.Time
	Runes int
}

// Rule is how a cluster treats a document that joins it, and which
// member takes the place of a representative that leaves: a filter's
// policy (package dedupfilter's Suppress, Mark, Replace) and Keep rule.
type Rule struct {
	Mark    bool // every member is in the search index
	Replace bool // the preferred member (Prefer) represents the cluster
	Longer  bool // under Replace, prefer the longer copy, then the newer
	// Take: the joining document represents the cluster whatever the
	// other fields say (its text holds the representative's, and more);
	// the representative it takes over from leaves the search index
	// unless Mark.
	Take bool
}

// Prefer reports whether a should represent a cluster rather than b under
// Replace: the longer (with Longer), else the newer, else the later
// version.
func (r Rule) Prefer(a, b Member) bool {
	if r.Longer && a.Runes != b.Runes {
		return a.Runes > b.Runes
	}
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.Seq > b.Seq
}

// JoinResult is what joining a cluster did.
type JoinResult struct {
	Representative string // the cluster's representative afterwards
	Indexed        bool   // whether the joining document is in the search index
	// Demoted is the representative the joining document replaced (Replace),
	// which leaves the search index; "" when none.
	Demoted string
}

// LeaveResult is what leaving a cluster did.
type LeaveResult struct {
	Representative string // afterwards; "" when the cluster is gone
	// Promoted is the member that took the place of the representative
	// that left and enters the search index; "" when none did.
	Promoted string
}

// Join and Leave on a Txn of the low-level cluster operations (the
// reference for a store that keeps clusters as its key schema says, and
// documents' Indexed in their records; a shared store runs them as one
// atomic step on the cluster).

// JoinTxn makes m a member of cluster c under rule and returns what that
// did. A cluster that does not exist is created with founder as its
// representative (m when nil). A member already there keeps its place.
func JoinTxn(tx Txn, c string, m Member, founder *Member, rule Rule) (JoinResult, error) {
	rep, err := tx.Representative(c)
	if errors.Is(err, ErrNotFound) {
		if founder == nil {
			founder = &m
		}
		if err := errors.Join(tx.SetRepresentative(c, founder.ID), tx.AddMember(c, founder.ID)); err != nil {
			return JoinResult{}, err
		}
		if founder.ID == m.ID {
			return JoinResult{Representative: m.ID, Indexed: true}, nil
		}
		rep = founder.ID
	} else if err != nil {
		return JoinResult{}, err
	}
	members, err := tx.Members(c)
	if err != nil {
		return JoinResult{}, err
	}
	for _, x := range members {
		if x == m.ID {
			rec, err := tx.Record(m.ID, false)
			indexed := err == nil && rec.Indexed || rep == m.ID
			return JoinResult{Representative: rep, Indexed: indexed}, nil
		}
	}
	if err := tx.AddMember(c, m.ID); err != nil {
		return JoinResult{}, err
	}
	switch {
	case rule.Take:
	case rule.Mark:
		return JoinResult{Representative: rep, Indexed: true}, nil
	case !rule.Replace:
		return JoinResult{Representative: rep}, nil
	}
	repRec, err := tx.Record(rep, false)
	if err != nil {
		return JoinResult{}, fmt.Errorf("representative of %s: %w", c, err)
	}
	if !rule.Take && !rule.Prefer(m, Member{ID: rep, Seq: repRec.Seq, Time: repRec.Time, Runes: repRec.Runes}) {
		return JoinResult{Representative: rep}, nil
	}
	if err := tx.SetRepresentative(c, m.ID); err != nil {
		return JoinResult{}, err
	}
	if rule.Mark {
		return JoinResult{Representative: m.ID, Indexed: true}, nil
	}
	repRec.Indexed = false
	if err := tx.PutRecord(rep, repRec); err != nil {
		return JoinResult{}, err
	}
	return JoinResult{Representative: m.ID, Indexed: true, Demoted: rep}, nil
}

// LeaveTxn removes id from cluster c and repairs it: when id represented
// it, the earliest remaining member (under Replace, the one rule
// prefers) takes its place and enters the search index; a cluster left
// empty is deleted. The document's own record is the caller's.
func LeaveTxn(tx Txn, c, id string, rule Rule) (LeaveResult, error) {
	if err := tx.RemoveMember(c, id); err != nil {
		return LeaveResult{}, err
	}
	rep, err := tx.Representative(c)
	if errors.Is(err, ErrNotFound) {
		return LeaveResult{}, nil
	}
	if err != nil || rep != id {
		return LeaveResult{Representative: rep}, err
	}
	members, err := tx.Members(c)
	if err != nil {
		return LeaveResult{}, err
	}
	if len(members) == 0 {
		return LeaveResult{}, tx.DeleteCluster(c)
	}
	var best Member
	var bestRec *Record
	for _, x := range members {
		rec, err := tx.Record(x, false)
		if err != nil {
			return LeaveResult{}, err
		}
		m := Member{ID: x, Seq: rec.Seq, Time: rec.Time, Runes: rec.Runes}
		if bestRec == nil || rule.Replace && rule.Prefer(m, best) || !rule.Replace && m.Seq < best.Seq {
			best, bestRec = m, rec
		}
	}
	if err := tx.SetRepresentative(c, best.ID); err != nil {
		return LeaveResult{}, err
	}
	res := LeaveResult{Representative: best.ID}
	if !bestRec.Indexed {
		bestRec.Indexed = true
		res.Promoted = best.ID
		if err := tx.PutRecord(best.ID, bestRec); err != nil {
			return LeaveResult{}, err
		}
	}
	return res, nil
}
