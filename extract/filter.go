package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLinkDensity: a paragraph more than this share of link text is a menu,
// a link list or a "related articles" box, not article prose.
const maxLinkDensity = 0.5

// maxBoilerplateRunes: only paragraphs up to this length are tested against
// the boilerplate patterns, so an article sentence that happens to start
// with "Source:" survives.
const maxBoilerplateRunes = 80

// boilerplateLine matches the start of source, byline, copyright, editor,
// timestamp ("Updated at 1:23 p.m.") and navigation lines that news sites
// and reprinting sites add around an article, in Chinese and English.
// Reprint words ("转载自") may run straight into the source name; the other
// Chinese words must be followed by punctuation, space or the end (Go's \b
// is ASCII-only). An English timestamp needs a digit after its verb, so
// "Updated guidance ..." stays.
var boilerplateLine = prefixGate(`(?i)^[\s\[(（【〖<«←]*(?:`+
	`(?:稿件来源|文章来源|本文来源|信息来源|新闻来源|来源于|本文转载自|转载自|转自|摘自|原文地址|原文链接|原标题|责任编辑|版权声明|免责声明)`+
	`|(?:来源|出处|稿源|作者|编辑|责编|相关阅读|相关链接|相关新闻|相关文章|相关信息|相关评论|延伸阅读|推荐阅读|返回|打印|关闭窗口|关闭)(?:[\s：:】\]）)>»]|$)`+
	`|(?:source|sources|editor|edited by|related|read more|more information|explore further|provided by|citation|advertisement|this (?:article|story) (?:first )?appeared|originally published|copyright)\b`+
	`|(?:published|updated|posted)\b.*\d)`,
	" \t\n\f\r[(（【〖<«←", "稿件来源", "文章来源", "本文来源", "信息来源", "新闻来源", "来源于", "本文转载自", "转载自", "转自", "摘自",
	"原文地址", "原文链接", "原标题", "责任编辑", "版权声明", "免责声明", "来源", "出处", "稿源", "作者", "编辑", "责编",
	"相关阅读", "相关链接", "相关新闻", "相关文章", "相关信息", "相关评论", "延伸阅读", "推荐阅读", "返回", "打印",
	"关闭窗口", "关闭", "source", "editor", "edited by", "related", "read more", "more information", "explore further",
	"provided by", "citation", "advertisement", "this article", "this story", "originally published", "copyright",
	"published", "updated", "posted")

// creditLine matches the source, credit, author and update labels of
// European sites at the start of a short line ("Quelle:", "Foto: dpa",
// "Źródło:", "Fuente:", "Crédits :", "Aktualisiert:").
var creditLine = prefixGate(`(?i)^[\s\[(«]*(?:quelle|bildquelle|foto|fotos|bild|autor|autorin|redaktion|aktualisiert|veröffentlicht|`+
	`źródło|fot\.?|zdjęcie|redakcja|aktualizacja|fuente|fotografía|actualizado|publicado|crédits?|photo|auteur|publié|`+
	`mis à jour|fonte|zdroj|aktualizováno|bron)\s*[:：]`,
	" \t\n\f\r[(«", "quelle", "bildquelle", "foto", "bild", "autor", "redaktion", "aktualisiert", "veröffentlicht",
	"źródło", "fot", "zdjęcie", "redakcja", "aktualizacja", "fuente", "fotografía", "actualizado", "publicado",
	"crédit", "photo", "auteur", "publié", "mis à jour", "fonte", "zdroj", "aktualizováno", "bron")

// boilerplateMark matches copyright notices, pagination and post or page
// timestamps anywhere in a short line: a numeric date with a time, an
// English month-name date with a time ("NOVEMBER 20, 2019 10:43"), or a
// US date before a byline ("11/19/2019 by Lars Brandle"). A bare date is
// left alone: embedded tweets end with one. A line with digits is tested
// only when it holds the ":" of a time or the "/" of a US date.
var boilerplateMark = containsGate(`(?i)版权所有|未经授权|禁止转载|不得转载|转载请注明|copyright|©|all rights reserved|`+
	`上一页|下一页|上一篇|下一篇|查看完整版本|返回顶部|返回首页|`+
	`\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\D{0,4}\d{1,2}:\d{2}|`+
	`\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4},? (?:at )?\d{1,2}:\d{2}|`+
	`\b\d{1,2}/\d{1,2}/\d{4} by `,
	":/", "版权所有", "未经授权", "禁止转载", "不得转载", "转载请注明", "copyright", "©", "all rights reserved",
	"上一页", "下一页", "上一篇", "下一篇", "查看完整版本", "返回顶部", "返回首页")

// dateTimeMark matches the dates with a time of European sites in a
// short line ("31.10.2021, 14:35", "31. Oktober 2021 um 14:35 Uhr", "2 de
// marzo de 2021 a las 10:15"); relativeTimeMark a relative time ending
// the line ("vor 2 Stunden", "2 godziny temu", "il y a 2 heures", "hace 2
// horas", "před 2 hodinami", "3時間前", "2小时前"). Their gates are
// narrower than boilerplateMark's: lines with digits are many on Chinese
// pages.
var (
	dateTimeMark = digitsGate(`(?i)`+
		`\b\d{1,2}\.\s?\d{1,2}\.\s?\d{4},?\s+(?:um\s+|o\s+|v\s+)?\d{1,2}[:.]\d{2}|`+
		`\b\d{1,2}\.?\s+(?:de\s+)?\pL+\.?\s+(?:de\s+)?\d{4},?\s+(?:um\s+|à\s+|a las\s+|às\s+|o\s+|alle\s+)?\d{1,2}[:.h]\d{2}`,
		7, ":", ".", "h")
	relativeTimeMark = containsGate(`(?i)`+
		`(?:\b\d+\s+(?:min(?:ute)?s?|hours?|hrs?|days?|weeks?)\s+ago|\bvor\s+\d+\s+(?:min(?:ute|uten)?|stunden?|std\.?|tag(?:en)?|wochen?)|`+
		`\b\d+\s+(?:minut[ay]?|godzin[ay]?|godz\.|dni|dzień|tygodni[ae]?)\s+temu|\bil y a\s+\d+\s+(?:min(?:ute)?s?|heures?|h|jours?)|`+
		`\bhace\s+\d+\s+(?:min(?:uto)?s?|horas?|días?)|\bpřed\s+\d+\s+(?:minutami|minutou|hodinami|hodinou|dny|dnem)|`+
		`\d+\s*(?:分|時間|日|分钟|分鐘|小时|小時|天)前)[\s\pP]*$`,
		"", "ago", "vor ", "temu", "il y a", "hace", "před", "前")
)

// byline matches a byline alone on its line: "By" (or "Von", "Par",
// "Por", "Di", "Door") and up to five capitalised words ("By Jeff Foust",
// "BY JERUSALEM POST STAFF", "Von Anna Schmidt und Jan Berg"). The
// capitals keep sentences such as "By then it was over." out.
var byline = prefixGate(`^(?:By|BY|by|Von|VON|von|Par|PAR|par|Por|POR|por|Di|DI|di|Door|door)\s+\p{Lu}[\p{L}.'’-]*(?:\s+(?:and\s+|und\s+|et\s+|y\s+|e\s+|en\s+)?\p{Lu}[\p{L}.'’-]*){0,4}$`,
	"", "by", "von", "par", "por", "di", "door")

// promo matches the calls to action and credits that news sites append to
// an article: newsletter and subscription prompts, "follow us on Twitter",
// reporter contacts ("follow him @x", e-mail addresses), wire credits ("X
// contributed to this report", "Reporting by X; Editing by Y"), "share it
// with a friend", citation lines. They read as prose, so only the tail of
// the text is tested (see paragraphs). The calls to subscribe and follow
// are known in German, French, Spanish, Italian, Polish, Czech and Dutch
// too.
var promo = containsGate(`(?i)\b(?:subscribe|newsletters?|inbox)\b`+
	`|\bfollow\b.{0,60}\bon (?:twitter|facebook|instagram)\b|\bfollow (?:us|him|her|them|me) @`+
	`|\bcontributed (?:to )?(?:this|the) (?:report|story)|\bcontributed reporting\b`+
	`|\bshare (?:it|this(?: story| article)?) with\b|\bif you (?:enjoyed|liked) this\b`+
	`|\breporting by\b|\bediting by\b|^contributing:`+
	`|^citation:|\bretrieved\b.*\bfrom https?://|(?:^|\s)[\w.+-]+@[\w-]+\.[a-z]{2,}`+
	// Other languages: subscribe, follow us.
	`|\b(?:abonnieren|abonniere|abonnez|suscríbete|suscríbase|suscribirse|iscriviti|zasubskrybuj|zapisz się|přihlaste se|odebírejte)`+
	`|\b(?:folgen sie uns|folge uns|obserwuj nas|suivez-nous|suivez nous|síguenos|seguici|sledujte nás|volg ons)`,
	"", "subscribe", "newsletter", "inbox", "follow", "contributed", "share", "if you", "reporting by",
	"editing by", "contributing:", "citation:", "retrieved", "@", "abonn", "suscr", "iscriviti", "zasubskrybuj",
	"zapisz się", "přihlaste se", "odebírejte", "folg", "obserwuj nas", "suivez", "síguenos", "seguici",
	"sledujte nás", "volg ons")

// A promo is dropped only among the last tailParagraphs paragraphs and up
// to maxPromoRunes: earlier in an article, or in a long paragraph,
// "subscribe" or "newsletter" is more likely its subject.
const (
	tailParagraphs = 5
	maxPromoRunes  = 300
)

// gated is a regular expression run only on text that passes its gate,
// a test every match passes: most lines do not, and the backtracking
// matcher costs microseconds a line. The gate is one of the literals at
// the start of the text (after runes in lead), with prefix, or anywhere
// in it, else; with digitWith, an ASCII digit and one of the bytes of
// digitWith anywhere open it too (the ":" of a time); with
// minDigits, the text must also hold that many digits. The literals are
// lower case; the text is lower-cased for the gate, not for the
// expression.
type gated struct {
	re        *regexp.Regexp
	prefix    bool
	lead      string
	digitWith string
	minDigits int // the text must hold this many ASCII digits besides a literal
	literals  []string
}

// containsGate returns a gated expression opened by any of literals
// anywhere in the text, or by an ASCII digit and a byte of digitWith.
func containsGate(expr string, digitWith string, literals ...string) gated {
	return gated{re: regexp.MustCompile(expr), digitWith: digitWith, literals: literals}
}

// digitsGate returns a gated expression opened by any of literals
// anywhere in a text that holds at least minDigits ASCII digits.
func digitsGate(expr string, minDigits int, literals ...string) gated {
	return gated{re: regexp.MustCompile(expr), minDigits: minDigits, literals: literals}
}

// prefixGate returns a gated expression opened by any of literals at the
// start of the text after a run of runes in lead.
func prefixGate(expr, lead string, literals ...string) gated {
	return gated{re: regexp.MustCompile(expr), prefix: true, lead: lead, literals: literals}
}

// match reports whether the expression matches s; lower is s in lower
// case.
func (g gated) match(s, lower string) bool {
	if g.minDigits > 0 && digits(s) < g.minDigits {
		return false
	}
	open := g.digitWith != "" && strings.ContainsAny(s, g.digitWith) && strings.ContainsAny(s, "0123456789")
	if g.prefix {
		lower = strings.TrimLeft(lower, g.lead)
	}
	for _, l := range g.literals {
		if open {
			break
		}
		if g.prefix {
			open = strings.HasPrefix(lower, l)
		} else {
			open = strings.Contains(lower, l)
		}
	}
	return open && g.re.MatchString(s)
}

// digits counts the ASCII digits of s.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

// isBoilerplate reports whether a paragraph is template text rather than
// article text: link-heavy, without any letter or digit, or a short
// source/copyright/navigation/byline line.
func isBoilerplate(b block) bool {
	if b.linkDensity() > maxLinkDensity && b.flags&fDataCell == 0 {
		return true
	}
	if !strings.ContainsFunc(b.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return true
	}
	if labelOf(b.text, b.runes) != notLabel {
		return true
	}
	if b.runes > maxBoilerplateRunes {
		return false
	}
	lower := strings.ToLower(b.text)
	return boilerplateLine.match(b.text, lower) || creditLine.match(b.text, lower) ||
		boilerplateMark.match(b.text, lower) || dateTimeMark.match(b.text, lower) ||
		relativeTimeMark.match(b.text, lower) || byline.match(b.text, lower)
}

// maxBoxHeadingRunes: a paragraph this short right before a link-heavy
// block is taken for the heading of a link box ("热点推荐", "Most read").
const maxBoxHeadingRunes = 10

// paragraphs keeps the text of the blocks that are not boilerplate, after
// joining broken sentences (see joinBroken) and without the promotional
// lines that end many articles (see promo). It overwrites bs.
func paragraphs(ck *check, bs []block) []string {
	bs = joinBroken(ck, bs)
	kept := bs[:0] // filtered in place: kept never passes the block read
	for i, b := range bs {
		if ck.stop() {
			return nil
		}
		if !isBoilerplate(b) {
			kept = append(kept, b)
			continue
		}
		prev := i - 1
		if b.linkDensity() > maxLinkDensity && prev >= 0 && len(kept) > 0 && kept[len(kept)-1].text == bs[prev].text &&
			bs[prev].runes <= maxBoxHeadingRunes {
			kept = kept[:len(kept)-1]
		}
	}
	var out []string
	for i, b := range kept {
		if i >= len(kept)-tailParagraphs && b.runes <= maxPromoRunes && promo.match(b.text, strings.ToLower(b.text)) {
			continue
		}
		out = append(out, b.text)
	}
	return out
}

// joinBroken joins each block that starts in lower case to the block
// before it when that one ends in a letter or a comma: go-trafilatura
// splits a paragraph of loose text (text between <br>s) at a link, and
// the piece that starts with the link, mostly link text, would otherwise
// fail the link-density test; pages break sentences at <br> too
// (hard-wrapped text). Scripts without case are left alone. A run of
// joined blocks is written once, so the cost stays linear however many
// blocks a run joins (appending each block to the text so far was
// quadratic: 25 s for 8 MB of lower-case text).
func joinBroken(ck *check, bs []block) []block {
	if !anyBroken(bs) {
		return bs // most pages, and all Chinese ones
	}
	var out []block
	for i := 0; i < len(bs) && !ck.stop(); {
		j := i + 1
		for j < len(bs) && continues(bs[j-1].text, bs[j].text) {
			j++
		}
		if j == i+1 {
			out = append(out, bs[i])
			i = j
			continue
		}
		joined := bs[i]
		var sb strings.Builder
		sb.WriteString(bs[i].text)
		for _, b := range bs[i+1 : j] {
			if ck.stop() {
				return out
			}
			sb.WriteByte(' ')
			sb.WriteString(b.text)
			joined.runes += 1 + b.runes
			joined.linkRunes += b.linkRunes
		}
		joined.text = sb.String()
		out = append(out, joined)
		i = j
	}
	return out
}

// anyBroken reports whether a block of bs continues the one before it.
func anyBroken(bs []block) bool {
	for i := 1; i < len(bs); i++ {
		if continues(bs[i-1].text, bs[i].text) {
			return true
		}
	}
	return false
}

// continues reports whether next continues the sentence that prev leaves
// open.
func continues(prev, next string) bool {
	first, _ := utf8.DecodeRuneInString(next)
	last, _ := utf8.DecodeLastRuneInString(prev)
	return unicode.IsLower(first) && (unicode.IsLetter(last) || last == ',')
}
