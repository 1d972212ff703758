// Package relevance rates how well pages and links fit a topic, for a
// focused crawler that feeds a search index.
//
// A Profile is a topic: keyword terms with weights, read from a JSON file
// (ReadProfile) or learnt from example pages (Learn). Profile.Score rates a
// fetched page by the topic-crawler paper's vector space model: the page's keyword
// frequencies, scaled so the most frequent keyword is 1 and multiplied by
// the keyword weights, are compared with the topic by cosine, separately
// for the title (B) and the body (C); the page's relevance is
// A = α·B + C (α = 0.5 by default), reported divided by α+1 so it lies in
// [0, 1], and the page is relevant when that reaches a threshold r.
//
// A LinkScorer rates an unfetched link by the link-value paper's weighted sum of four
// predictions — the anchor text, the text of the sibling links, the parent
// page's relevance and the URL's words — and learns the weights from the
// pages a training crawl fetches (see LinkScorer for the rule). Its state
// is saved and restored with encoding/json.
//
// Text is split into terms by a Tokenizer; DefaultTokenizer uses Unicode
// word boundaries, width-folds and lowercases, and cuts Han runs into
// bigrams. Keywords are tokenised the same way, so "人工智能" matches pages
// containing it and, partly, pages containing only "智能".
//
// Caveats:
//   - Only keyword terms are counted, so the score ignores how much of the
//     page is off-topic: a long page that mentions each keyword once among
//     thousands of other words scores like a short page about nothing else.
//   - Bigrams over-match across Chinese word boundaries; keyword profiles
//     with short, common words ("中国") match widely.
//   - With the topic-crawler paper's α = 4 and r = 0.4 (2 of its 5), a
//     page whose title shares no term with the topic cannot be relevant
//     (its value is at most 0.2); a page without any title is scored by
//     its body alone. Titles of real pages (names, site names) rarely
//     share terms with a topic, so the defaults are α = 0.5, r = 0.3,
//     chosen by measurement; see Options.TitleWeight.
//   - DefaultTokenizer emits Han bigrams only, so a one-character Chinese
//     keyword ("鱼", "站") matches only a lone character between
//     non-Han text, almost never; use two-character keywords.
//   - The link-weight learning rule is our reading of the link-value paper, whose
//     update formula is lost in the available text.
//   - Profiles and LinkScorers are safe for concurrent use.
package relevance
