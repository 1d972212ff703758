// Package analyzer computes the features that near-duplicate detection
// compares, from a page's main text (its paragraphs, without the title):
//
//   - Pieces and Structure, the feature-string paper's feature string and the (gn, cn, kl)
//     structure signature used as a 3-D candidate hash;
//   - Terms, the boolean-model paper's boolean features with term frequencies;
//   - Blocks, the fingerprint paper's SHA-1 fingerprints of the most important blocks;
//   - MinHash, a signature for LSH banding (see Bands).
//
// Create an Analyzer with New(DefaultOptions()) and call Analyze per page;
// an Analyzer is safe for concurrent use. The subpackages wrap the same
// functions as bleve analysis components (a char filter, tokenizers and
// analyzers registered by name), so a bleve index mapping can index the
// same features.
//
// # Normalisation
//
// All features are computed on normalised text (AppendNormalized): width
// folding, lowercase, traditional Chinese characters folded to simplified
// ones, invisible characters dropped, one quote style, collapsed whitespace.
// Reprints that change only these produce identical features, so a Big5
// page from Taiwan or Hong Kong that reprints a mainland article in
// traditional script matches the simplified original. Features then keep letters, digits and marks ("content") and
// treat everything else as separators, so punctuation and spacing changes
// do not matter either, except where a character is a delimiter.
//
// # Sentences
//
// A delimiter gap is the stretch between two content characters holding at
// least one effective delimiter (Options.Delimiters). An ASCII delimiter
// written directly between two ASCII letters or digits is not effective:
// The feature-string paper's decimal-point rule, extended to "e.g", "example.com", "1,000"
// and "10:30". Pieces are cut at delimiter gaps only, so their windows
// cross paragraph breaks and reprints that split or merge paragraphs keep
// them; sentences (kl) are cut at delimiter gaps and paragraph breaks, and
// blocks likewise with Options.BlockDelimiters.
//
// A piece is the window before a delimiter gap followed by the window after
// it. A window collects content characters moving away from the gap,
// skipping spaces and punctuation, crossing paragraph breaks but never
// another delimiter gap. Its size is decided by the character nearest the
// gap: Options.HanWindow characters if that is a Han ideograph or Hangul
// syllable, else Options.LatinWindow; then characters of any script count
// one each. So with the defaults "学习Go. Next" gives the piece "习gonex"
// ('o' is nearest: three characters, the third Han), and "用Go学。再见"
// gives "学再". A gap at the start or end of the text gives a piece with one
// window.
//
// # Caveats
//
//   - Features computed with different Options are not comparable, and
//     neither are features from a version whose golden test changed.
//   - The decimal-point rule also applies to full-width punctuation once
//     folded: "ＡＢＣ！ＤＥＦ" has no delimiter, like "abc!def".
//   - A '.' ending an abbreviation before a space ("e.g. this", "U.S. Army")
//     ends a sentence. Copies of a text agree on it, so duplicates still
//     match, but kl counts such false sentences.
//   - Delimiter characters that are letters (such as "的") are not content:
//     they appear in no window and no block.
//   - Length (cn) counts content characters, not the GB2312 bytes of seed
//     000, so a Chinese text has about half as many units as the paper's.
//   - Script folding is character by character, from OpenCC's
//     TSCharacters table (generated into simplified_table.go by
//     internal/tsgen; Apache-2.0). Phrase-level differences are not
//     unified: regional vocabulary ("軟體" vs "软件") and Taiwan variant
//     forms ("著" for "着") stay different. A character with several
//     simplified forms takes the usual one, even where it is itself valid
//     simplified ("乾" -> "干", "於" -> "于"), so such characters in
//     simplified text (乾隆) and Japanese kanji with a simplified form
//     ("書" -> "书") change too; both copies of a text change alike.
//   - Word segmentation comes from github.com/blevesearch/segment; a new
//     version that segments differently changes Terms and MinHash, which
//     TestMinHashGolden would report.
//   - An empty text has the MinHash of all math.MaxUint64, equal for all
//     empty texts; callers should not treat empty pages as duplicates.
package analyzer
