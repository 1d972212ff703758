package page

// Page is one document read from an input.
type Page struct {
	ID  string // unique document id
	URL string // optional
	// CanonicalURL is URL in canonical form (package canon) when the
	// reader made it (a WARC record's id), so that later steps need not
	// make it again; "" otherwise.
	CanonicalURL string
	Title        string // optional, from the input record
	HTML         string // decoded HTML (UTF-8); empty when Text is set
	Text         string // plain text input; empty when HTML is set
	Source       string // where it came from: "path", "path:line" or "path@offset"
	// Charset is the encoding the bytes were decoded from (WHATWG name,
	// "utf-8" for JSONL records) and CharsetSource where it came from:
	// one of the Source constants.
	Charset, CharsetSource string
}
