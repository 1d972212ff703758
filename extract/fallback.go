package extract

import "golang.org/x/net/html/atom"

// boilerplate elements never hold main text.
var boilerplate = map[atom.Atom]bool{
	atom.Head: true, atom.Nav: true, atom.Header: true, atom.Footer: true,
	atom.Aside: true, atom.Form: true, atom.Select: true, atom.Button: true,
	atom.Noscript: true, atom.Iframe: true, atom.Menu: true, atom.Ul: true,
	atom.Ol: true, atom.Dl: true, atom.Textarea: true,
}

// minFallbackRunes is the shortest block the fallback keeps: shorter runs
// outside <p> are mostly menu items, bylines and buttons.
const minFallbackRunes = 30

// fallback is the cheap extractor used when the engine returns nothing:
// the text blocks of the page outside boilerplate elements that are long
// enough to be prose.
func (t *tree) fallback() []string {
	var long []block
	for _, b := range t.blocks {
		if b.flags&fBoilerplate == 0 && b.runes >= minFallbackRunes {
			long = append(long, b)
		}
	}
	return paragraphs(t.ck, long)
}
