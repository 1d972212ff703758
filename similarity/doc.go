// Package similarity compares two pages' features with the measures of the
// source documents and decides whether they are near-duplicates: the
// feature-string paper's feature strings, character frequencies, tag edit
// distance and same URL; the boolean-model paper's boolean measure with
// Conrad's and Pugh's definitions and exact Jaccard; the fingerprint
// paper's shared block fingerprints (ST_m); MinHash; and containment (the
// smaller page's terms found in the other), which a reprint that kept
// only part of its original keeps.
//
// # Basics
//
// A Signature is the compact form of a page's features (package analyzer)
// that the measures need, about 550 bytes a page on the development set:
// 16-bit hashes of the feature-string pieces,
// the low byte of each MinHash value, 32-bit block fingerprints, and the
// terms themselves (32-bit hashes and frequencies) on short pages or a
// one-permutation sketch of 64 bins on longer ones, which the
// boolean-model measures compare by estimates (Options.TermSketch). Every
// measure compares the stored form, so a signature read back from a
// store decides as the one it was made from. New makes one from Features,
// Of makes the one a store keeps (only the parts the chosen measures use),
// Encode and Decode write and read it. Compare runs every measure on two signatures
// and decides under Options: one measure alone, or Combined, where Votes
// kinds of evidence among the Voters must agree (each measure of text in
// order is a kind, the term-set measures together are one), one of them
// text in order, and each page must hold HeldMin of the other's terms
// (Verdict.InB, InA; see Options). The Verdict carries each
// measure's score and the shared features behind them (the evidence a
// user sees).
//
// Package dedupfilter verifies its candidates with Verify, Compare
// without the sample of shared term names.
//
// # Caveats
//
// The thresholds of DefaultOptions were chosen on the labelled
// development set (docs/methods.md); other kinds of pages may want
// others. Signatures made with different analyzer settings do not compare
// (MinHash values of different hash families never match). Terms are
// compared by 32-bit hashes: two different terms of one page collide with
// odds about n²/2³³ (n ≈ 300 terms: 1e-5), too rare to move a measure.
package similarity
