// Package boolquery parses the boolean retrieval syntax of the boolean-model paper
// (布尔模型在网页查重中的应用) and compiles it to bleve queries.
//
//	(university OR college) AND (education OR Law) NOT Japan
//	雪花 NOT 啤酒 AND 歌曲 OR 小说
//	title:"law school" -e-mail + 2019-11-19
//
// Parse builds a tree (Node) whose String form is the canonical query;
// Compile turns a tree into a query.Query; Query does both.
//
// # Grammar
//
// In EBNF, with precedence NOT > AND > OR and all binary operators
// left-associative:
//
//	query   = or EOF .
//	or      = and { ( "OR" | "+" ) and } .
//	and     = unary { [ "AND" | "*" ] unary | ( "NOT" | "-" ) unary } .
//	unary   = ( "NOT" | "-" ) unary | operand .
//	operand = term | phrase | "(" or ")" .
//	term    = [ field ":" ] word .
//	phrase  = [ field ":" ] '"' { char | '\"' | '\\' } '"' .
//
// Lexical rules:
//
//   - Tokens are separated by Unicode white space (including the
//     ideographic space U+3000). A word runs up to white space, "(", ")"
//     or '"'.
//   - Keywords AND, OR and NOT are case-sensitive whole words: "and",
//     "Or" or "ANDROID" are ordinary terms. Write "AND" in quotes to
//     search for the word itself.
//   - The symbols * + - are operators only where a token starts: at the
//     start of the query, after white space, after a parenthesis or after
//     a closing quote. Inside a word they are literal, so "e-mail",
//     "C++", "wild*card" and "2019-11-19" are single terms, while "a -b"
//     is a AND NOT b and "-2019" is NOT 2019 (quote it to search for
//     "-2019").
//   - A colon inside a word separates a field name from the term:
//     "title:college". Only the first colon counts ("url:http://x" is the
//     term "http://x" in field url), and an empty field name (":x") or a
//     field without a term ("title: x") is an error. Operators are not
//     recognised after the colon ("title:NOT" is a term), and a field
//     cannot prefix a parenthesised group.
//   - Phrases are in double quotes; inside them \" is a quote and \\ a
//     backslash, every other character (including operators) is literal.
//     An empty phrase is an error.
//
// Semantics:
//
//   - Juxtaposition is AND: "a b" means a AND b.
//   - NOT is binary as well as unary: "a NOT b" is a AND NOT b. Since
//     NOT binds tighter than AND and OR, "a OR b NOT c" is a OR (b AND
//     NOT c). A NOT that is not part of a conjunction ("NOT x", "-x",
//     "a OR NOT b") means every document except those matching x.
//   - Nested conjunctions and disjunctions are flattened: the tree of
//     "(a AND b) AND c" is And{a, b, c}.
//
// # Analysis
//
// A term compiles to a bleve match query with operator AND, a phrase to a
// match-phrase query, so bleve analyses them with the analyzer the index
// mapping assigns to the field, exactly as at index time. When a term
// yields several tokens (e-mail → e, mail; 歌曲小说 → 歌曲 曲小 小说
// under the cjk analyzer) all of them must occur in the same field.
// Options.Fields lists the fields searched by terms without a field
// prefix; a term matches if it matches in any of them.
//
// # Caveats
//
//   - A term that analyses to no tokens (a stop word such as "the", or
//     pure punctuation) matches no document, as in bleve: "the AND x"
//     finds nothing, "the OR x" finds x, "x NOT the" finds x.
//   - With bleve's "cjk" analyzer the index holds only bigrams, so a
//     one-character Chinese term such as 雪 finds nothing; index with an
//     analyzer that also emits unigrams if single characters must match.
//   - Without Options.Fields terms search the mapping's default field
//     (bleve's "_all"), analysed with the mapping's default analyzer,
//     which may differ from the analyzers of the individual fields.
//   - Phrases need term vectors in the index (bleve's default for text
//     fields).
//   - SyntaxError.Pos is a byte offset, not a rune or column count.
//   - Nesting of parentheses and NOT is limited to MaxDepth.
//   - Parse and Compile are safe for concurrent use; trees are plain
//     values that Compile does not modify.
package boolquery
