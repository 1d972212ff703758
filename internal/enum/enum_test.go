package enum

import (
	"strings"
	"testing"
)

type color int

var colors = New[color]("color", "red", "green", "dark-blue")

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    color
		wantErr string
	}{
		{"red", 0, ""},
		{"GREEN", 1, ""},
		{"Dark-Blue", 2, ""},
		{"blue", 0, `unknown color "blue" (want red, green or dark-blue)`},
		{"", 0, `unknown color ""`},
	}
	for _, tt := range tests {
		got, err := colors.Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		in   color
		want string
	}{
		{0, "red"}, {2, "dark-blue"}, {3, "color(3)"}, {-1, "color(-1)"}, /* the type is named color */
	}
	for _, tt := range tests {
		if got := colors.String(tt.in); got != tt.want {
			t.Errorf("String(%d) = %q, want %q", tt.in, got, tt.want)
		}
		// Every name parses back to its value.
		if colors.Valid(tt.in) {
			if back, err := colors.Parse(tt.want); err != nil || back != tt.in {
				t.Errorf("Parse(String(%d)) = %d, %v", tt.in, back, err)
			}
		}
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"},
	}
	for _, tt := range tests {
		if got := New[color]("x", tt.names...).List(); got != tt.want {
			t.Errorf("List(%v) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
