package main

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// byteSize is a flag value of a number of bytes written with a unit:
// 8MiB, 512KiB, 1.5GiB (binary, 1024ⁿ), 10MB, 1.5GB (decimal, 1000ⁿ), or
// bare bytes (4096). Units are case-insensitive; a fraction is rounded
// down to a whole byte. K, M, G and T alone are refused as ambiguous.
//
//	fs.Var((*byteSize)(&o.limit), "limit", "...")
type byteSize int64

// sizeUnits are the units byteSize takes, by lower-case name.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// binaryUnits are the units String writes, largest first.
var binaryUnits = []struct {
	name string
	n    int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

var errSize = errors.New("want a size such as 4096, 512KiB, 256MiB, 1.5GiB or 10MB")

func (s *byteSize) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = byteSize(n)
	return nil
}

func parseSize(v string) (int64, error) {
	t := strings.TrimSpace(v)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	switch {
	case !ok && (unit == "k" || unit == "m" || unit == "g" || unit == "t"):
		return 0, fmt.Errorf("%q: unit %s is ambiguous, write %siB (binary) or %sB (decimal)", v, t[i:], strings.ToUpper(unit), strings.ToUpper(unit))
	case !ok, num == "", num == ".", strings.Count(num, ".") > 1:
		return 0, fmt.Errorf("%q: %w", v, errSize)
	}
	// Exact arithmetic: 1.1GB is 1,100,000,000 bytes, not a float's
	// approximation of it.
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%q: %w", v, errSize)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	switch {
	case mult == 1 && !r.IsInt():
		return 0, fmt.Errorf("%q: a number of bytes is whole", v)
	case !n.IsInt64():
		return 0, fmt.Errorf("%q: larger than %d bytes", v, int64(math.MaxInt64))
	}
	return n.Int64(), nil
}

// String writes the size in the largest binary unit that divides it, so
// that defaults show as 256MiB.
func (s *byteSize) String() string {
	n := int64(*s)
	for _, u := range binaryUnits {
		if n != 0 && n%u.n == 0 {
			return fmt.Sprintf("%d%s", n/u.n, u.name)
		}
	}
	return fmt.Sprint(n)
}

func (s *byteSize) Type() string { return "size" }

// sizeString writes n bytes for people: in the largest binary unit it
// reaches, to a tenth.
func sizeString(n int64) string {
	for _, u := range binaryUnits {
		if n >= u.n {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.n), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
