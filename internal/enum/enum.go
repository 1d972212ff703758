// Package enum gives the project's small integer enums (policies, measures,
// strategies, query syntaxes) their String and Parse from one table of
// names, so that every one of them parses alike (case-insensitive) and
// reports an unknown value alike.
package enum

import (
	"fmt"
	"reflect"
	"strings"
)

// Names maps the values 0..n-1 of an enum type to their names.
type Names[T ~int] struct {
	kind  string // what the values are, for messages: "policy"
	names []string
}

// New returns the names of kind, value i named names[i].
func New[T ~int](kind string, names ...string) Names[T] {
	return Names[T]{kind: kind, names: names}
}

// String returns v's name, or "Type(v)" for a value without one, as
// stringer would.
func (n Names[T]) String(v T) string {
	if !n.Valid(v) {
		return fmt.Sprintf("%s(%d)", reflect.TypeFor[T]().Name(), int(v))
	}
	return n.names[v]
}

// Valid reports whether v has a name.
func (n Names[T]) Valid(v T) bool { return v >= 0 && int(v) < len(n.names) }

// Parse returns the value named s, ignoring case. The error names the
// accepted values; callers wrap it with their package's sentinel.
func (n Names[T]) Parse(s string) (T, error) {
	for i, name := range n.names {
		if strings.EqualFold(s, name) {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", n.kind, s, n.List())
}

// Text is v's name for encoding.TextMarshaler: an index records its
// settings by name, not by number, so that they read well and survive a
// reordering of the constants.
func (n Names[T]) Text(v T) ([]byte, error) {
	if !n.Valid(v) {
		return nil, fmt.Errorf("%s %d has no name", n.kind, int(v))
	}
	return []byte(n.names[v]), nil
}

// List returns the names as "a, b or c".
func (n Names[T]) List() string {
	switch len(n.names) {
	case 0:
		return ""
	case 1:
		return n.names[0]
	}
	return strings.Join(n.names[:len(n.names)-1], ", ") + " or " + n.names[len(n.names)-1]
}
