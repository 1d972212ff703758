package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNoData is wrapped by FindData when no shared/data directory is found.
var ErrNoData = errors.New("synth: shared/data not found")

// FindData returns the project's shared data directory: the first
// shared/data found walking up from the working directory (from a package
// directory it is ../../shared/data or deeper), so tests and the benchmark
// work from any directory of a worktree.
func FindData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("synth: %w", err)
	}
	for {
		cand := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(filepath.Join(cand, "README.md")); err == nil && !st.IsDir() {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoData
		}
		dir = parent
	}
}

// Model holds the text models trained on the shared data: a word chain
// over English news bodies and a character chain over Chinese prose.
type Model struct {
	en *chain
	zh *chain
}

// Load trains the models on the texts under dataDir (the shared/data
// directory): extract/en/ground-truth.json for English,
// text/zh/cmrc2018_dev.json and extract/zh/cleaned/*.txt for Chinese.
// Training reads its inputs in a fixed order, so a Model generates the
// same pages for the same seed on every machine.
func Load(dataDir string) (*Model, error) {
	m := &Model{en: newChain(0.3, " "), zh: newChain(0.25, "")}

	raw, err := os.ReadFile(filepath.Join(dataDir, "extract", "en", "ground-truth.json"))
	if err != nil {
		return nil, fmt.Errorf("synth: English text: %w", err)
	}
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(raw, &gt); err != nil {
		return nil, fmt.Errorf("synth: English text: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(gt)) {
		if isEnglish(gt[k].ArticleBody) {
			trainEnglish(m.en, gt[k].ArticleBody)
		}
	}

	raw, err = os.ReadFile(filepath.Join(dataDir, "text", "zh", "cmrc2018_dev.json"))
	if err != nil {
		return nil, fmt.Errorf("synth: Chinese text: %w", err)
	}
	var passages []struct {
		ContextText string `json:"context_text"`
	}
	if err := json.Unmarshal(raw, &passages); err != nil {
		return nil, fmt.Errorf("synth: Chinese text: %w", err)
	}
	for _, p := range passages {
		trainChinese(m.zh, p.ContextText)
	}
	files, err := filepath.Glob(filepath.Join(dataDir, "extract", "zh", "cleaned", "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("synth: Chinese text: %w", err)
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("synth: Chinese text: %w", err)
		}
		trainChinese(m.zh, string(b))
	}
	if len(m.en.stream) == 0 || len(m.zh.stream) == 0 {
		return nil, fmt.Errorf("synth: no training text under %s", dataDir)
	}
	return m, nil
}

// isEnglish tells the English articles of the extraction benchmark from
// the others it holds (Portuguese, Russian, Korean, ...): mostly ASCII
// letters and a tenth of the words English function words.
func isEnglish(text string) bool {
	letters, ascii := 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
			if r < utf8.RuneSelf {
				ascii++
			}
		}
	}
	words := strings.Fields(strings.ToLower(text))
	common := 0
	for _, w := range words {
		if enFunction[w] {
			common++
		}
	}
	return letters > 0 && ascii*100 >= letters*95 && common*10 >= len(words)
}

var enFunction = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "a": true, "in": true, "is": true, "that": true, "for": true, "on": true,
	"it": true, "with": true, "as": true, "was": true, "are": true, "be": true, "by": true, "this": true, "at": true, "from": true,
}
