package extract

import (
	"regexp"
	"strings"
	"unicode"
)

// maxLinkDensity: a paragraph more than this share of link text is a menu,
// a link list or a "related articles" box, not article prose.
const maxLinkDensity = 0.5

// maxBoilerplateRunes: only paragraphs up to this length are tested against
// the boilerplate patterns, so an article sentence that happens to start
// with "Source:" survives.
const maxBoilerplateRunes = 80

// boilerplateLine matches the start of source, byline, copyright, editor and
// navigation lines that news sites and reprinting sites add around an
// article, in Chinese and English. Reprint words ("转载自") may run straight
// into the source name; the other Chinese words must be followed by
// punctuation, space or the end (Go's \b is ASCII-only).
var boilerplateLine = regexp.MustCompile(`(?i)^[\s\[(（【〖<«←]*(?:` +
	`(?:稿件来源|文章来源|本文来源|信息来源|新闻来源|来源于|本文转载自|转载自|转自|摘自|原文地址|原文链接|原标题|责任编辑|版权声明|免责声明)` +
	`|(?:来源|出处|稿源|作者|编辑|责编|相关阅读|相关链接|相关新闻|相关文章|相关信息|相关评论|延伸阅读|推荐阅读|返回|打印|关闭窗口|关闭)(?:[\s：:】\]）)>»]|$)` +
	`|(?:source|sources|editor|edited by|related|read more|more information|explore further|provided by|citation|advertisement|this (?:article|story) (?:first )?appeared|originally published|copyright)\b)`)

// boilerplateMark matches copyright notices, pagination and post or page
// timestamps anywhere in a short line.
var boilerplateMark = regexp.MustCompile(`(?i)版权所有|未经授权|禁止转载|不得转载|转载请注明|copyright|©|all rights reserved|` +
	`上一页|下一页|上一篇|下一篇|查看完整版本|返回顶部|返回首页|` +
	`\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\D{0,4}\d{1,2}:\d{2}`)

// isBoilerplate reports whether a paragraph is template text rather than
// article text: link-heavy, without any letter or digit, or a short
// source/copyright/navigation line.
func isBoilerplate(b block) bool {
	if b.linkDensity() > maxLinkDensity {
		return true
	}
	if !strings.ContainsFunc(b.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return true
	}
	return b.runes <= maxBoilerplateRunes && (boilerplateLine.MatchString(b.text) || boilerplateMark.MatchString(b.text))
}

// maxBoxHeadingRunes: a paragraph this short right before a link-heavy
// block is taken for the heading of a link box ("热点推荐", "Most read").
const maxBoxHeadingRunes = 10

// paragraphs keeps the text of the blocks that are not boilerplate.
func paragraphs(bs []block) []string {
	var out []string
	for i, b := range bs {
		if !isBoilerplate(b) {
			out = append(out, b.text)
			continue
		}
		prev := i - 1
		if b.linkDensity() > maxLinkDensity && prev >= 0 && len(out) > 0 && out[len(out)-1] == bs[prev].text &&
			bs[prev].runes <= maxBoxHeadingRunes {
			out = out[:len(out)-1]
		}
	}
	return out
}
