package rediscluster

import "github.com/redis/go-redis/v9"

// Internals for the external tests.

func (s *Store) Client() redis.UniversalClient { return s.rdb }
func (s *Store) Key(parts ...string) string    { return s.k(parts...) }

const Format = redisFormat

// FamilyOf is the posting family of key k.
func FamilyOf(k []byte) uint64 { return placeOf(k).family }

const BucketLoad = bucketLoad
