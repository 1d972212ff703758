package analyzer

import (
	"fmt"
	"math"
)

// Fixed constants of the MinHash family. They are part of the stored
// format: signatures computed with other constants are incomparable, so
// never change them (TestMinHashGolden pins them).
const (
	fnvOffset   = 14695981039346656037 // FNV-1a 64-bit offset basis
	fnvPrime    = 1099511628211        // FNV-1a 64-bit prime
	minHashSeed = 0x6465647570626c76   // "dedupblv": seeds the hashes
)

// mix64 is the splitmix64 finaliser: a fixed bijection that spreads every
// input bit over the whole word.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// fnv1a is the 64-bit FNV-1a hash of b: specified independently of Go, so
// token hashes are stable across versions and platforms.
func fnv1a(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// minHash appends the signature of normalised text, segmented into words,
// to sig, as documented on Analyzer.MinHash; hashes is scratch memory,
// returned for reuse. A text with fewer than k tokens has one shingle of
// all its tokens; an empty text gets every value math.MaxUint64.
func (a *Analyzer) minHash(sig []uint64, text []byte, words []word, hashes []uint64) ([]uint64, []uint64) {
	n := a.opts.MinHashSize
	base := len(sig)
	for range n {
		sig = append(sig, math.MaxUint64)
	}
	bins := sig[base:]
	hashes = hashes[:0]
	for _, w := range words {
		hashes = append(hashes, fnv1a(text[w.Start:w.End]))
	}
	k := min(a.opts.Shingle, len(hashes))
	filled := 0
	for i := 0; i+k <= len(hashes) && k > 0; i++ {
		h := uint64(k)
		for _, t := range hashes[i : i+k] {
			h = (h ^ t) * fnvPrime
		}
		h = mix64(h ^ minHashSeed)
		b := (h >> 32) * uint64(n) >> 32 // bin from the high bits
		if bins[b] == math.MaxUint64 {
			filled++
		}
		bins[b] = min(bins[b], h)
	}
	if filled == 0 || filled == n {
		return sig, hashes
	}
	orig := make([]bool, n) // bins filled by shingles, not by densification
	first := -1
	for i, v := range bins {
		if orig[i] = v != math.MaxUint64; orig[i] && first < 0 {
			first = i
		}
	}
	for i := range bins {
		if orig[i] {
			continue
		}
		// Probe pseudo-random bins; each hits with probability filled/n,
		// so 64n probes all miss with probability below e^-64. The bound
		// only guarantees termination.
		src := first
		for attempt := range uint64(64 * n) {
			j := (mix64(minHashSeed^uint64(i)<<32^attempt) >> 32) * uint64(n) >> 32
			if orig[j] {
				src = int(j)
				break
			}
		}
		bins[i] = bins[src]
	}
	return sig, hashes
}

// Bands returns the LSH band keys of a MinHash signature: the signature is
// cut into bands of len(sig)/bands consecutive values and each band hashed,
// with its index, to one key. Two signatures share the key of band i exactly
// when they agree on all of band i's values (up to 64-bit collisions), so
// documents sharing any key are LSH candidates. The hash is fixed, so stored
// keys stay valid across runs.
func Bands(sig []uint64, bands int) ([]uint64, error) {
	if bands < 1 || len(sig)%bands != 0 {
		return nil, fmt.Errorf("analyzer: %d bands do not divide a signature of %d: %w", bands, len(sig), ErrInvalidOptions)
	}
	rows := len(sig) / bands
	keys := make([]uint64, bands)
	for i := range keys {
		h := mix64(uint64(i) + minHashSeed)
		for _, v := range sig[i*rows : (i+1)*rows] {
			h = mix64(h ^ v)
		}
		keys[i] = h
	}
	return keys, nil
}
