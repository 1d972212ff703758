package analyzer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/internal/testkit/golden"
)

// goldenText mixes the scripts and the normalisation cases, so the golden
// signature pins width folding, segmentation, shingling and hashing.
var goldenText = []string{
	"“自然语言处理”是人工智能的一个重要方向，研究如何让计算机理解人类的语言。",
	"The quick brown fox jumps over the lazy dog; it costs 3.14 dollars. Ｆｕｌｌ－ｗｉｄｔｈ text!",
	"カタカナとひらがな、한국어도 있습니다。",
}

// TestMinHashGolden pins the MinHash family: stored signatures must stay
// valid across runs and versions, so any change in the output is a format
// break, not a refactoring. Run with -update only for a deliberate break.
func TestMinHashGolden(t *testing.T) {
	f := mustNew(t, nil).Analyze(goldenText)
	var b strings.Builder
	for i, v := range f.MinHash {
		fmt.Fprintf(&b, "%016x", v)
		if i%4 == 3 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	keys, err := Bands(f.MinHash, 32)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "bands(32): %016x\n", keys[:4])
	golden.Check(t, "minhash.golden", b.String())
}
