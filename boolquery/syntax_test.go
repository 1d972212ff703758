package boolquery

import (
	"errors"
	"testing"
)

func TestParseSyntax(t *testing.T) {
	tests := []struct {
		in      string
		want    Syntax
		wantErr error
	}{
		{"boolean", Boolean, nil},
		{"QueryString", QueryString, nil},
		{"lucene", 0, ErrInvalidOptions},
	}
	for _, tt := range tests {
		got, err := ParseSyntax(tt.in)
		if !errors.Is(err, tt.wantErr) || got != tt.want {
			t.Errorf("ParseSyntax(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestQuerySyntax(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		syn     Syntax
		wantErr error
	}{
		{"boolean", "a AND b", Boolean, nil},
		{"boolean error", "a AND", Boolean, ErrSyntax},
		{"query string", "+a -b title:c", QueryString, nil},
		{"query string error", `"unclosed`, QueryString, ErrSyntax},
		{"unknown syntax", "a", Syntax(7), ErrInvalidOptions},
	}
	for _, tt := range tests {
		q, err := Query(tt.in, Options{Syntax: tt.syn})
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: Query(%q) error = %v, want %v", tt.name, tt.in, err, tt.wantErr)
		}
		if (err == nil) != (q != nil) {
			t.Errorf("%s: Query(%q) = %v, %v; want exactly one of them", tt.name, tt.in, q, err)
		}
	}
}
