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
		{`class="type-gallery"`, fBox | fWholeBox},
		{`class="gallery article-body"`, 0},
		{`id="sidebar-left"`, fBox},
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
