package analyzer

import "slices"

// TermHash is one term of Features.TermHashes: the low 32 bits of the
// term's 64-bit FNV-1a hash, and its frequency.
type TermHash struct {
	Hash uint32
	N    int
}

// WithTermHashes returns an Analyzer like a whose Features carry
// TermHashes in place of Terms, for callers that compare pages by their
// terms' hashes only, as a similarity signature does: a map keyed by
// the terms' names costs more to fill than the rest of Analyze but the
// segmentation, and allocates most of what it does.
func (a *Analyzer) WithTermHashes() *Analyzer {
	b := a.clone()
	b.termHashes = true
	return b
}

// termCounter counts a page's terms by hash: an open-addressing table
// kept between pages, so that a page allocates only its result.
type termCounter struct {
	keys   []uint32
	counts []int
	used   []uint64 // the slots in use, each as its hash<<32 | slot
	spare  []uint64 // sorted's scratch space
	shift  uint
	mask   uint32
}

// reset empties the table and sizes it for up to n terms at a load of
// at most a half.
func (c *termCounter) reset(n int) {
	bits := uint(4)
	for 1<<bits < 2*n {
		bits++
	}
	if size := 1 << bits; len(c.keys) < size {
		c.keys, c.counts = make([]uint32, size), make([]int, size)
	}
	for _, u := range c.used {
		c.counts[uint32(u)] = 0
	}
	c.used, c.shift, c.mask = c.used[:0], 32-bits, 1<<bits-1
}

// add counts one occurrence of term.
func (c *termCounter) add(term []byte) {
	h := uint32(fnv1a(term))
	// The low bits of FNV-1a of terms differing in their last letter are
	// close: the slot is the top bits of a multiplicative mix.
	i := (h * 0x9e3779b1) >> c.shift
	for c.counts[i] != 0 && c.keys[i] != h {
		i = (i + 1) & c.mask
	}
	if c.counts[i] == 0 {
		c.keys[i] = h
		c.used = append(c.used, uint64(h)<<32|uint64(i))
	}
	c.counts[i]++
}

// sorted returns the counted terms sorted by hash.
func (c *termCounter) sorted() []TermHash {
	c.used, c.spare = sortByHash(c.used, c.spare)
	out := make([]TermHash, len(c.used))
	for j, u := range c.used {
		out[j] = TermHash{uint32(u >> 32), c.counts[uint32(u)]}
	}
	return out
}

// sortByHash sorts used by its top 32 bits (hashes are distinct: by
// hash), with spare as scratch space, and returns both (used may come
// back as what was spare). A page has hundreds of terms: a radix sort of
// the hash's four bytes takes about a third of a comparison sort's time
// there.
func sortByHash(used, spare []uint64) ([]uint64, []uint64) {
	if len(used) < 64 {
		slices.Sort(used)
		return used, spare
	}
	spare = slices.Grow(spare[:0], len(used))[:len(used)]
	var counts [4][256]int
	for _, u := range used {
		counts[0][byte(u>>32)]++
		counts[1][byte(u>>40)]++
		counts[2][byte(u>>48)]++
		counts[3][byte(u>>56)]++
	}
	src, dst := used, spare
	for pass := range 4 {
		shift := 32 + 8*pass
		n := &counts[pass]
		if n[byte(src[0]>>shift)] == len(src) {
			continue // every key has this byte
		}
		at := 0
		for b := range n {
			at, n[b] = at+n[b], at
		}
		for _, u := range src {
			b := byte(u >> shift)
			dst[n[b]] = u
			n[b]++
		}
		src, dst = dst, src
	}
	return src, dst
}
