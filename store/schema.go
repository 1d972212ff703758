package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Namespaces of the embedded store's keys: see the key schema in the
// package doc. The last three are other packages', the only keys a KV
// writes.
const (
	NSDoc       = "d/"
	NSSignature = "s/"
	NSPayload   = "y/"
	NSPosting   = "p/"
	NSCluster   = "c/"
	NSMember    = "m/"
	NSPending   = "w/"
	KeySeq      = "!/seq"
	KeyCluster  = "!/cluster"
	KeyFormat   = "!/format"

	NSSite      = "t/"       // package sitetext
	NSSiteStale = "t!stale/" // package sitetext
	NSURL       = "u/"       // package indexer
)

// Names of the Parts of Stats: what each namespace of the key schema
// holds, and the embedded store's posting table.
const (
	PartRecords      = "records"
	PartSignatures   = "signatures"
	PartPayloads     = "payloads"
	PartStopLists    = "stop lists"
	PartClusters     = "clusters"
	PartMembers      = "members"
	PartPending      = "pending"
	PartCounters     = "counters"
	PartSites        = "site tables"
	PartURLs         = "URL owners"
	PartOther        = "other"
	PartPostingTable = "posting table"
)

// partNames are the Part names of the key schema's namespaces.
var partNames = map[string]string{
	NSDoc: PartRecords, NSSignature: PartSignatures, NSPayload: PartPayloads,
	NSPosting: PartStopLists, NSCluster: PartClusters, NSMember: PartMembers,
	NSPending: PartPending, "!/": PartCounters, NSSite: PartSites,
	NSSiteStale: PartSites, NSURL: PartURLs,
}

// PartName is the Part that key belongs to, by its namespace.
func PartName(key []byte) string {
	if i := bytes.IndexByte(key, '/'); i >= 0 {
		if name, ok := partNames[string(key[:i+1])]; ok {
			return name
		}
	}
	return PartOther
}

// PostingKey is the key of a posting list: "p/", a byte naming the kind
// of feature, and the feature's 8-byte hash.
func PostingKey(kind byte, h uint64) []byte {
	b := make([]byte, 0, PostingKeyLen)
	b = append(b, NSPosting...)
	b = append(b, kind)
	return binary.BigEndian.AppendUint64(b, h)
}

// PostingKeyLen is the length of a PostingKey.
const PostingKeyLen = len(NSPosting) + 9

// PostingKind is the kind byte of a PostingKey.
func PostingKind(k []byte) byte { return k[len(NSPosting)] }

// clusterIDLen is the length of a cluster id: 16 lowercase hex digits of
// a counter, so that ids sort in creation order.
const clusterIDLen = 16

// ClusterID is the id of cluster number n.
func ClusterID(n uint64) string { return fmt.Sprintf("%0*x", clusterIDLen, n) }

// ParseClusterID returns the number of a cluster id.
func ParseClusterID(id string) (uint64, error) {
	if len(id) != clusterIDLen || strings.ToLower(id) != id {
		return 0, fmt.Errorf("cluster id %q: want %d lowercase hex digits: %w", id, clusterIDLen, ErrCorrupt)
	}
	n, err := strconv.ParseUint(id, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("cluster id %q: %w", id, ErrCorrupt)
	}
	return n, nil
}

// Hash is 64-bit FNV-1a with splitmix64's finaliser, so that all of its
// bits are well mixed: stores place posting keys by it.
func Hash(b []byte) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, c := range b {
		h ^= uint64(c)
		h *= prime
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
