package extract

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDiag(t *testing.T) {
	out := os.Getenv("DIAG_OUT")
	if out == "" {
		t.Skip()
	}
	f, _ := os.Create(out)
	defer f.Close()
	pages := loadNeardup(t)
	gold := neardupGold(t)
	for _, p := range pages {
		want := gold[copySuffix.ReplaceAllString(p.ID, "")]
		c, _ := FromPage(p)
		pr, r := pageScore(c.Text(), want)
		fmt.Fprintf(f, "nd\t%s\t%.3f\t%.3f\t%d\n", p.ID, pr, r, len([]rune(c.Text())))
	}
	for _, s := range append(loadEN(t), loadZH(t)...) {
		c, _ := HTML(s.html, s.url)
		pr, r := pageScore(c.Text(), s.gold)
		fmt.Fprintf(f, "x\t%s\t%.3f\t%.3f\t%d\n", s.name, pr, r, len([]rune(c.Text())))
	}
}

func TestZZShow(t *testing.T) {
	id := os.Getenv("SHOW_ID")
	if id == "" {
		t.Skip()
	}
	for _, p := range loadNeardup(t) {
		if p.ID == id {
			c, _ := FromPage(p)
			fmt.Println("TITLE:", c.Title)
			for _, x := range c.Paragraphs {
				fmt.Println("|", x)
			}
			if os.Getenv("SHOW_HTML") != "" {
				os.WriteFile("/tmp/show.html", []byte(p.HTML), 0o644)
			}
		}
	}
}
