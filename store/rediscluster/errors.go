package rediscluster

import "errors"

// Sentinel errors of this package; the store's others (not found, read
// only, corrupt) are package store's.
var (
	// ErrInvalidURL: a store URL or key prefix that cannot name a shared
	// store.
	ErrInvalidURL = errors.New("invalid store URL")
)
