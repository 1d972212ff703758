// Package testtext makes the text of test pages: articles of
// pseudo-random words, one topic unlike another, and a site's template
// paragraphs, for the tests of the packages that decide and index pages.
package testtext

import (
	"fmt"
	"strings"
)

// Article makes n paragraphs of pseudo-random words seeded by topic, so
// two topics share no more than common words would.
func Article(topic string, n int) []string {
	words := strings.Fields("river bridge school market harbour council budget teacher farmer winter storm railway museum library doctor nurse festival election court police garden factory engineer student village mountain forest lake island ferry airport tunnel highway bakery theatre concert painter writer novel poem science rocket planet ocean whale forest desert camel tiger panda")
	seed := uint64(14695981039346656037)
	for _, c := range topic {
		seed = (seed ^ uint64(c)) * 1099511628211
	}
	ps := make([]string, n)
	for i := range ps {
		var b strings.Builder
		for w := range 40 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(words[(seed>>33)%uint64(len(words))])
			if w%10 == 9 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		ps[i] = b.String()
	}
	return ps
}

// Template is a site's shared text, the paragraphs before and after its
// pages' articles: long, so it dominates short articles.
func Template(site string) (head, tail []string) {
	for i := range 6 {
		head = append(head, fmt.Sprintf("%s other post number %d: a long diary entry about the weather, the garden, the neighbours and the long walk to the market on a windy day in autumn.", site, i))
	}
	tail = []string{site + " copyright notice, all rights reserved, contact the webmaster for reprint permission and advertising rates."}
	return head, tail
}
