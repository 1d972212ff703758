package extract

import (
	"context"
	"strings"
	"testing"
)

func TestNameFlags(t *testing.T) {
	tests := []struct {
		attrs string
		want  elemFlags // of fBox and fWholeBox
	}{
		{`class="sidebar"`, fBox},
		{`class="post-content"`, 0},
		{`class="l-sidebar l-article-body"`, 0},
		{`class="has-sidebar"`, 0},
		{`class="comment-body"`, fBox | fWholeBox},
		{`class="js_reply reply"`, fBox | fWholeBox},
		{`class="post commented"`, fBox | fWholeBox},
		{`class="type-gallery"`, fBox | fWholeBox},
		{`class="gallery article-body"`, 0},
		{`id="sidebar-left"`, fBox},
		// A column whose id is "sidebar" is a box whatever its size.
		{`id="sidebar"`, fBox | fWholeBox},
		{`id="Sidebar2"`, fBox | fWholeBox},
		{`class="sidebar" id="sidebar"`, fBox | fWholeBox},
		{`class="l-article-body" id="sidebar"`, 0},
		{`id="related-posts-widget-area"`, fBox},
		// A heading's slug, not a template's name.
		{`id="sharing-with-a-single-developer"`, 0},
		{`class="sharing-with-a-single-developer"`, fBox},
		// Other languages.
		{`class="kommentare"`, fBox | fWholeBox},
		{`id="komentarze"`, fBox | fWholeBox},
		{`class="comentarios-lista"`, fBox | fWholeBox},
		{`class="artikel-teilen"`, fBox},
		{`class="powiazane"`, fBox},
		{`class="reklama"`, fBox},
		{`class="souvisejici-clanky"`, fBox},
		{`class="xiangguan"`, fBox},
	}
	for _, tt := range tests {
		tr, err := buildTree(context.Background(), `<div `+tt.attrs+`>text</div>`)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.els[len(tr.els)-1].flags & (fBox | fWholeBox); got != tt.want {
			t.Errorf("<div %s>: flags %b, want %b", tt.attrs, got, tt.want)
		}
	}
	// The page's outer elements carry feature and state names.
	for _, tt := range []struct {
		doc  string
		want elemFlags
	}{
		{`<body class="f_comment_annotation_on">text`, 0},
		{`<article class="post commented">text`, 0},
		{`<article class="js_reply reply">text`, fBox | fWholeBox},
	} {
		tr, err := buildTree(context.Background(), tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.els[len(tr.els)-1].flags & (fBox | fWholeBox); got != tt.want {
			t.Errorf("%s: flags %b, want %b", tt.doc, got, tt.want)
		}
	}
}

// TestGalleryInArticle: a gallery whose captions outweigh the article
// around it stays out of the result.
func TestGalleryInArticle(t *testing.T) {
	caption := "A long caption of a picture in the gallery, which says who took it and where it was taken, and why."
	article := "The article itself is short: one paragraph long enough to be prose, with a few sentences in it."
	doc := `<article><div class=body><p>` + article + `</p><div class="widget type-gallery">` +
		strings.Repeat("<p>"+caption+"</p>", 20) + `</div><p>` + article + `</p></div></article>`
	c, err := HTML(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Text(), article+"\n"+article; got != want {
		t.Errorf("text %.80q..., want %.80q...", got, want)
	}
}

// TestLabelledBoxes: boxes without class names, told by the labels they
// start with, in several languages, stay out of the result, and so do
// button lines.
func TestLabelledBoxes(t *testing.T) {
	para := func(s string) string { return "<p>" + s + "</p>" }
	tests := []struct {
		name, article, boxes string
		top                  string // page furniture atop the article, inside its container
	}{
		{
			"de comments longer than the article",
			para("Der Stadtrat hat am Dienstag den Bau einer neuen Fußgängerbrücke über den Fluss beschlossen.") +
				para("Die Arbeiten sollen im Frühjahr beginnen und rund zwei Jahre dauern, teilte die Verwaltung mit."),
			`<div><span>Teilen</span></div><div><h3>Kommentare (3)</h3><div>` +
				strings.Repeat(para("Endlich passiert etwas, ich gehe jeden Tag über die alte Brücke und sie ist wirklich in einem schlechten Zustand."), 6) +
				`</div></div>`,
			"",
		},
		{
			"pl teasers after the article",
			para("Rada miasta zdecydowała we wtorek o budowie nowej kładki dla pieszych nad rzeką w centrum.") +
				para("Prace mają się rozpocząć wiosną i potrwać około dwóch lat, poinformował urząd miasta w komunikacie."),
			`<p>Udostępnij</p><section><div>Czytaj także:</div><div><h4>Nowy park</h4>` +
				para("Miasto otworzyło nowy park nad rzeką, z placem zabaw i ścieżką rowerową dla mieszkańców.") + `</div></section>`,
			"",
		},
		{
			"ja related box",
			para("市議会は火曜日、川に新しい歩道橋を建設することを決めた。工事は春に始まり、約二年かかる見込みだという。市の担当者は通勤が便利になると話した。"),
			`<div><div>関連記事</div><div>` + para("市内に新しい公園が開園した。川沿いには遊び場と自転車道が整備され、多くの市民が訪れている。") + `</div></div>`,
			"",
		},
		{
			"a comment count atop the article is not a comment section",
			para("The city council voted on Tuesday to build a new footbridge over the river near the old market.") +
				para("Work is to start in the spring and take about two years, the council said in a statement.") +
				para("The old bridge will stay open to cyclists until the new one is finished, a spokesman added."),
			`<div class=about>` + para("Local news from the valley since 1998.") + `</div>`,
			`<div class=comments_popup_link><a href="#respond"><span>3</span> Comments</a></div>`,
		},
	}
	for _, tt := range tests {
		doc := `<html><body><div id=page><div class=content>` + tt.article + tt.boxes + `</div></div></body></html>`
		if tt.top != "" {
			doc = `<html><body><div id=page><div class=masthead>Valley News</div><div class=wrapper>` + tt.top + `<div class=text>` + tt.article + `</div></div>` + tt.boxes + `</div></body></html>`
		}
		c, err := HTML(doc, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := strings.Join(Text(strings.NewReplacer("<p>", "", "</p>", "\n\n").Replace(tt.article)).Paragraphs, "\n")
		if got := c.Text(); got != want {
			t.Errorf("%s: text %q, want %q", tt.name, got, want)
		}
	}
}

// TestTables: a data table keeps its linked names and the introduction
// around it; a layout table's link cell beside the article stays out.
func TestTables(t *testing.T) {
	desc := func(i int) string {
		return "A film in which the day repeats itself until the hero learns something, number " + string(rune('A'+i)) + "."
	}
	var rows, want []string
	for i := range 12 {
		name := "Film " + string(rune('A'+i))
		rows = append(rows, `<tr><td><a href="/f">`+name+`</a></td><td>`+desc(i)+`</td></tr>`)
		want = append(want, name, desc(i))
	}
	intro := "This list of films featuring time loops names films in which characters live the same period again and again."
	data := `<div id=menu><a href=/>Home</a> <a href=/l>Lists</a></div><div class=body><p>` + intro + `</p><table><tbody>` +
		strings.Join(rows, "") + `</tbody></table></div>`
	article := strings.Repeat("The article sits in a cell of the layout table, as old portals put it, beside a column of links. ", 8)
	layout := `<table><tr><td><a href="/ad">Send GP to 6666 for quotes</a></td><td><p>` + article + `</p></td></tr></table>`
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"data table", data, append([]string{intro}, want...)},
		{"layout table", layout, []string{collapse(article)}},
	}
	for _, tt := range tests {
		c, err := HTML(tt.doc, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := c.Paragraphs; strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: paragraphs %.200q, want %.200q", tt.name, got, tt.want)
		}
	}
}

// TestNegativeArticle: an article whose every line weighs against it
// (link-dense lines) is found whole, in a page that a form wraps, as
// ASP.NET sites do, where the fallback finds nothing.
func TestNegativeArticle(t *testing.T) {
	para := `<p>Read <a href="/r">the council's report</a> on the bridge, with <a href="/m">the map</a>.</p>`
	doc := `<html><body><form id=aspnetForm><div>` + para + para + `</div></form><div class=x></div></body></html>`
	want := "Read the council's report on the bridge, with the map.\nRead the council's report on the bridge, with the map."
	c, err := HTML(doc, "")
	if err != nil || c.Text() != want {
		t.Errorf("text %q, %v; want %q", c.Text(), err, want)
	}
}

// TestHiddenInlineBox: the words before a hidden inline element or an
// inline box that holds blocks stay in the article: around a formula, as
// Wikipedia wraps its MathML, one sentence.
func TestHiddenInlineBox(t *testing.T) {
	const sentence = "is Hermitian if and only if it is equal to its adjoint, as the definition says."
	math := `<span style="display: none;"><math><semantics><mrow><mi>A</mi></mrow><annotation>{A}</annotation></semantics></math></span><img alt="A">`
	tests := []struct{ name, doc, want string }{
		{"formula", `<p>A square matrix ` + math + ` ` + sentence + `</p>`, "A square matrix " + sentence},
		{"hidden span around a div", `<div>A square matrix <span hidden><div>A</div></span> ` + sentence + `</div>`, "A square matrix " + sentence},
		{"box span around a div", `<div>A square matrix <span class=share><div>Share</div></span> ` + sentence + `</div>`, "A square matrix " + sentence},
	}
	for _, tt := range tests {
		if c, err := HTML(tt.doc, ""); err != nil || c.Text() != tt.want {
			t.Errorf("%s: text %q, %v; want %q", tt.name, c.Text(), err, tt.want)
		}
	}
}
