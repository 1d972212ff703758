package indexer_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExamples: each Go block of README.md marked
// "<!-- example: FILE -->" is code of that runnable example, line for
// line, so the README shows code that compiles and runs in CI.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skipf("no README beside the package: %v", err)
	}
	blocks := regexp.MustCompile("(?s)<!-- example: (\\S+) -->\\s*```go\\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no marked example")
	}
	for _, b := range blocks {
		src, err := os.ReadFile("../" + b[1])
		if err != nil {
			t.Errorf("README names %s: %v", b[1], err)
			continue
		}
		if want, got := trimmed(b[2]), trimmed(string(src)); !strings.Contains(got, want) {
			t.Errorf("README's example from %s is not its code:\n%s", b[1], b[2])
		}
	}
}

// trimmed is s's lines without their indentation, joined.
func trimmed(s string) string {
	var out []string
	for line := range strings.Lines(s) {
		out = append(out, strings.TrimSpace(line))
	}
	return strings.Join(out, "\n")
}
