package page

// Page is one document read from an input.
type Page struct {
	ID     string // unique document id
	URL    string // optional
	Title  string // optional, from the input record
	HTML   string // decoded HTML (UTF-8); empty when Text is set
	Text   string // plain text input; empty when HTML is set
	Source string // where it came from: "path" or "path:line"
}
