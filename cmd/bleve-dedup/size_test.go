package main

import (
	"strings"
	"testing"
)

func TestByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string // substring; "" for success
		str     string // String after Set
	}{
		{"0", 0, "", "0"},
		{"4096", 4096, "", "4KiB"},
		{"1000", 1000, "", "1000"},
		{"8MiB", 8 << 20, "", "8MiB"},
		{"512KiB", 512 << 10, "", "512KiB"},
		{"256mib", 256 << 20, "", "256MiB"},
		{"1GiB", 1 << 30, "", "1GiB"},
		{"2TiB", 2 << 40, "", "2TiB"},
		{"1.5GiB", 3 << 29, "", "1536MiB"},
		{"1.5GB", 1_500_000_000, "", "1500000000"},
		{"1.1GB", 1_100_000_000, "", "1100000000"},
		{"10MB", 10_000_000, "", "10000000"},
		{"0.3KiB", 307, "", "307"}, // 307.2, rounded down
		{" 64 MiB ", 64 << 20, "", "64MiB"},
		{"12B", 12, "", "12"},
		{".5KiB", 512, "", "512"},
		{"8M", 0, "ambiguous, write MiB (binary) or MB (decimal)", ""},
		{"8k", 0, "ambiguous", ""},
		{"1.5", 0, "a number of bytes is whole", ""},
		{"-1", 0, "want a size", ""},
		{"", 0, "want a size", ""},
		{"MiB", 0, "want a size", ""},
		{"1.2.3MiB", 0, "want a size", ""},
		{"1e3", 0, "want a size", ""},
		{"3 parsecs", 0, "want a size", ""},
		{"9223372036854775807", 1<<63 - 1, "", "9223372036854775807"},
		{"8EiB", 0, "want a size", ""},
		{"8388608TiB", 0, "larger than", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var s byteSize
			err := s.Set(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Set(%q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || int64(s) != tt.want {
				t.Fatalf("Set(%q) = %d, %v; want %d", tt.in, s, err, tt.want)
			}
			if got := s.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			var again byteSize
			if err := again.Set(s.String()); err != nil || again != s {
				t.Errorf("Set(String()) = %d, %v; want %d", again, err, s)
			}
		})
	}
	if got := new(byteSize).Type(); got != "size" {
		t.Errorf("Type() = %q, want size", got)
	}
}
