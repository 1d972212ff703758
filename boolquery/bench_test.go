package boolquery

import "testing"

func BenchmarkParse(b *testing.B) {
	const s = `(university OR college) AND (education OR Law) NOT Japan OR title:"law school" 雪花 -啤酒 + 歌曲小说`
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}
