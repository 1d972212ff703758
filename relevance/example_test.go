package relevance_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bleve-dedup/bleve-dedup/relevance"
)

func ExampleReadProfile() {
	file := `{"name": "football", "keywords": {"足球": 1, "联赛": 0.8, "football": 1}}`
	p, err := relevance.ReadProfile(strings.NewReader(file), relevance.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	s := p.Score("中国足球超级联赛", "本赛季联赛共有十六支球队参加，联赛冠军参加亚洲的足球比赛。")
	fmt.Printf("%s: title %.2f, body %.2f, value %.2f, relevant %v\n", p.Name(), s.Title, s.Body, s.Value, s.Relevant)
	// Output: football: title 0.79, body 0.74, value 0.76, relevant true
}

func ExampleProfile_Score() {
	p, _ := relevance.NewProfile("space", map[string]float64{"moon": 1, "nasa": 1, "lander": 0.5}, relevance.DefaultOptions())
	for _, page := range [][2]string{
		{"NASA picks moon lander companies", "NASA chose five firms to build a lander for the moon."},
		{"Local election results", "Turnout was low; one candidate mentioned NASA once."},
	} {
		s := p.Score(page[0], page[1])
		fmt.Printf("%-33s %.2f %v\n", page[0], s.Value, s.Relevant)
	}
	// Output:
	// NASA picks moon lander companies  1.00 true
	// Local election results            0.15 false
}

func ExampleLearn() {
	examples := []string{
		"The striker scored a late goal and the football club moved up the league.",
		"Football: the club's striker was sent off before the goal.",
	}
	background := []string{
		"The club meets on Tuesdays to discuss books.",
		"The council approved the budget for the park.",
		"A late train delayed commuters.",
	}
	p, _ := relevance.Learn("football", examples, background, 3, relevance.DefaultOptions())
	kw, _ := json.Marshal(p.Keywords())
	fmt.Println(string(kw))
	// Output: {"football":1,"goal":1,"striker":1}
}

func ExampleLinkScorer() {
	p, _ := relevance.NewProfile("space", map[string]float64{"moon": 1, "lander": 1}, relevance.DefaultOptions())
	s, _ := relevance.NewLinkScorer(p, relevance.DefaultLinkOptions())
	link := relevance.Link{
		URL:             "https://example.com/2019/11/moon-lander-contract.html",
		Anchor:          "Read more",
		Siblings:        []string{"Moon lander bids", "Weather"},
		ParentRelevance: 0.9,
	}
	fmt.Printf("before: %.3f\n", s.Value(link))
	// The fetched page turned out relevant (0.95): the siblings, parent
	// and URL predicted it within 0.05, the anchor ("Read more") did not.
	s.Observe(link, 0.95)
	w := s.Weights()
	fmt.Printf("weights: anchor %.3f, siblings %.3f, parent %.3f, url %.3f\n", w.Anchor, w.Siblings, w.Parent, w.URL)
	state, _ := json.Marshal(s) // store it; json.Unmarshal restores it
	fmt.Println(string(state)[:16])
	// Output:
	// before: 0.725
	// weights: anchor 0.032, siblings 0.323, parent 0.323, url 0.323
	// {"observations":
}
