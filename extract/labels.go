package extract

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Labels are the short lines of a page's furniture: buttons and the
// headings of the boxes around an article, in the languages the
// extraction meets. A line that is only a label (up to counts, colons and
// brackets: "Kommentare (12)", "Share:", "【相关文章】") is never article
// text.
//
// commentLabels head a comment section, and boxLabels other boxes that
// follow an article (related or recommended articles, "read also"): an
// element that starts with one is a template box (see labelBoxes).
// uiLabels are the other labels: buttons and kickers, dropped as lines
// (see isBoilerplate). The article genre "Kommentar" (a German opinion
// piece) is a ui label only.
var (
	commentLabels = labelSet(
		"comments", "responses", "leave a comment", "leave a reply", "post a comment", "join the discussion",
		"kommentare", "leserkommentare", "diskussion", "komentarze", "dyskusja", "commentaires", "réactions",
		"comentarios", "comentários", "commenti", "reacties", "komentáře", "diskuse", "diskuze", "コメント",
		"评论", "網友評論", "网友评论", "网友评论区", "評論",
	)
	boxLabels = labelSet(
		// en
		"related", "related articles", "related posts", "related stories", "related news", "related content",
		"read more", "read also", "read next", "more stories", "more from", "more on this story", "you may also like",
		"you might also like", "recommended", "recommended for you", "recommended stories", "most read", "most popular",
		"popular posts", "trending", "more in", "further reading", "see also",
		// de
		"mehr zum thema", "zum thema", "lesen sie auch", "lesen sie mehr",
		"das könnte sie auch interessieren", "das könnte sie interessieren", "weitere artikel", "ähnliche artikel",
		"verwandte artikel", "meistgelesen", "meistgelesene artikel", "empfehlungen", "auch interessant", "mehr aus",
		// pl
		"czytaj także", "czytaj też", "czytaj również", "zobacz też", "zobacz także",
		"zobacz również", "powiązane", "powiązane artykuły", "polecamy", "polecane", "podobne artykuły",
		"najczęściej czytane", "najpopularniejsze", "więcej na ten temat",
		// fr
		"lire aussi", "à lire aussi", "a lire aussi", "voir aussi", "sur le même sujet",
		"articles similaires", "articles liés", "les plus lus", "à lire également", "lire la suite",
		// es, pt
		"lee también", "lea también", "leer más", "ver también", "noticias relacionadas",
		"artículos relacionados", "te puede interesar", "también te puede interesar", "lo más leído", "más leídas",
		"leia também", "veja também", "notícias relacionadas", "mais lidas",
		// it, nl
		"leggi anche", "articoli correlati", "potrebbe interessarti", "i più letti",
		"lees ook", "gerelateerde artikelen", "meest gelezen",
		// cs
		"čtěte také", "čtěte též", "související", "související články",
		"nejčtenější", "další články",
		// ja
		"関連記事", "関連ニュース", "関連リンク", "あわせて読みたい", "こちらもおすすめ", "おすすめ記事",
		"人気記事", "人気の記事", "アクセスランキング", "ランキング", "続きを読む",
		// zh
		"相关文章", "相關文章", "相关新闻", "相關新聞", "相关阅读", "相关推荐", "延伸阅读",
		"推荐阅读", "热门文章", "热门推荐", "猜你喜欢", "精彩推荐", "热点新闻", "大家都在看",
	)
	uiLabels = labelSet(
		// en
		"share", "share this", "share this article", "share on facebook", "share on twitter", "tweet", "print",
		"email", "e-mail", "comment", "reply", "like", "follow", "advertisement", "sponsored", "tags", "topics",
		"next", "previous", "back to top", "top",
		// de
		"teilen", "artikel teilen", "drucken", "kommentar", "antworten", "anzeige", "werbung", "schlagworte",
		"themen", "nach oben", "zurück", "weiter", "merken", "e-mail senden",
		// pl
		"udostępnij", "drukuj", "komentarz", "odpowiedz", "reklama", "tagi", "następny", "poprzedni",
		// fr
		"partager", "imprimer", "commentaire", "répondre", "publicité", "mots-clés", "suivant", "précédent",
		// es, pt
		"compartir", "imprimir", "comentario", "responder", "publicidad", "etiquetas", "siguiente", "anterior",
		"compartilhar", "publicidade",
		// it, nl
		"condividi", "stampa", "rispondi", "pubblicità", "delen", "advertentie",
		// cs
		"sdílet", "tisk", "odpovědět", "štítky", "tisknout",
		// ja
		"シェア", "ツイート", "印刷", "広告", "タグ", "前へ", "次へ", "いいね",
		// zh
		"分享", "分享到", "打印", "广告", "廣告", "标签", "標籤", "收藏", "点赞", "举报",
	)
)

// maxLabelRunes bounds the lines tested as labels.
const maxLabelRunes = 40

func labelSet(labels ...string) map[string]bool {
	m := make(map[string]bool, len(labels))
	for _, l := range labels {
		m[l] = true
	}
	return m
}

// labelStarts holds the first rune of every label.
var labelStarts = func() map[rune]bool {
	m := map[rune]bool{}
	for _, set := range []map[string]bool{commentLabels, boxLabels, uiLabels} {
		for l := range set {
			m[firstLetter(l)] = true
		}
	}
	return m
}()

// firstLetter returns the first rune of s that labelKey keeps, lower
// case, or -1.
func firstLetter(s string) rune {
	for _, r := range s {
		if !unicode.IsDigit(r) && !unicode.IsSpace(r) && !labelMark(r) {
			return unicode.ToLower(r)
		}
	}
	return -1
}

// labelKey appends to buf the key of a short line for the label sets:
// lower case, without digits, brackets, colons and similar marks
// ("Kommentare (12)" and "12 Kommentare:" are "kommentare"), without
// trailing dots, dashes and marks of exclamation or question, white space
// collapsed. It allocates nothing when buf has room.
func labelKey(buf []byte, s string) []byte {
	space := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r) || unicode.IsSpace(r) || labelMark(r):
			space = len(buf) > 0
			continue
		case space:
			buf = append(buf, ' ')
			space = false
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	for len(buf) > 0 {
		r, size := utf8.DecodeLastRune(buf)
		if !strings.ContainsRune(".…!?-–—", r) {
			break
		}
		buf = buf[:len(buf)-size]
	}
	return bytes.TrimRight(buf, " ")
}

// labelMark reports the marks labelKey drops.
func labelMark(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiLabelMarks[r]
	}
	return strings.ContainsRune(labelMarks, r)
}

// labelMarks and asciiLabelMarks are the marks labelKey drops.
const labelMarks = "：»«›‹•·【】（）「」『』《》〔〕→←↓↑"

var asciiLabelMarks = [utf8.RuneSelf]bool{'(': true, ')': true, '[': true, ']': true, '{': true, '}': true,
	'<': true, '>': true, ':': true, '|': true, '#': true}

// labelKind is what a line is as a label.
type labelKind int

const (
	notLabel labelKind = iota
	uiLabel
	boxLabel
	commentLabel
)

// labelOf returns what text, of runes runes, is as a label.
func labelOf(text string, runes int) labelKind {
	if runes > maxLabelRunes {
		return notLabel
	}
	if !labelStarts[firstLetter(text)] {
		return notLabel // most lines: a cheap test before the key
	}
	var buf [4 * maxLabelRunes]byte
	k := labelKey(buf[:0], text)
	switch {
	case commentLabels[string(k)]:
		return commentLabel
	case boxLabels[string(k)]:
		return boxLabel
	case uiLabels[string(k)]:
		return uiLabel
	}
	return notLabel
}

// labelBoxes marks as template boxes (fBox) the elements that start with
// the label of a box: the outermost element whose first block is the
// label, below the page's outer elements (neverBox), which boxes then
// weighs like a box named by its class (a comment section whatever its
// size). The climb stops at an element already named as a box: a
// comment count or jump link ("3 Comments" in a "comments_popup_link"
// box) heads many articles, and the elements above it that start with it
// are the article's, not a comment section (19 Dragnet pages lost their
// article to this, and none of the other sets changed).
func (t *tree) labelBoxes() {
	for i := range t.blocks {
		b := &t.blocks[i]
		kind := labelOf(b.text, b.runes)
		if kind < boxLabel || t.ck.stop() {
			continue
		}
		top := int32(-1)
		for a := b.el; a > 0 && t.els[a].first == int32(i) && !neverBox[t.els[a].tag]; a = t.els[a].parent {
			top = a
			if t.els[a].flags&fBox != 0 {
				break
			}
		}
		if top > 0 {
			t.els[top].flags |= fBox
			if kind == commentLabel {
				t.els[top].flags |= fWholeBox
			}
		}
	}
}
