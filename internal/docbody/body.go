package docbody

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Of returns data as a JSON object and its encoding. A value that names
// its own mapping type (mapping.Classifier) keeps it in the type field of
// m, so that it maps alike when indexed again from the object.
func Of(data any, m mapping.IndexMapping) (map[string]any, []byte, error) {
	payload, err := Encode(data)
	if err != nil {
		return nil, nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		return nil, nil, fmt.Errorf("docbody: document as JSON: not an object: %w", err)
	}
	if c, ok := data.(mapping.Classifier); ok {
		if im, ok := m.(*mapping.IndexMappingImpl); ok && im.TypeField != "" {
			if _, has := body[im.TypeField]; !has {
				body[im.TypeField] = c.Type()
				if payload, err = Encode(body); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return body, payload, nil
}

// Encode encodes v as JSON without escaping markup characters: a page's
// HTML stays its size (json.Marshal writes each < and > as six bytes).
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("docbody: document as JSON: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// lookup returns the values at path in body: a path's parts name nested
// objects' keys, and an array stands for each of its elements.
func lookup(body any, path string) []any {
	if path == "" {
		return nil
	}
	vals := []any{body}
	for part := range strings.SplitSeq(path, ".") {
		var next []any
		for _, v := range vals {
			if m, ok := v.(map[string]any); ok {
				next = appendValues(next, m[part])
			}
		}
		vals = next
	}
	return vals
}

// appendValues appends v, or v's elements when it is an array.
func appendValues(out []any, v any) []any {
	switch v := v.(type) {
	case nil:
	case []any:
		for _, x := range v {
			out = appendValues(out, x)
		}
	default:
		out = append(out, v)
	}
	return out
}

// Strings returns the string values at path in body, numbers and
// booleans written out: a path's parts name nested objects' keys, and an
// array stands for each of its elements.
func Strings(body map[string]any, path string) []string {
	var out []string
	for _, v := range lookup(body, path) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case float64, bool:
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

// First is the first string at path in body (Strings), or "".
func First(body map[string]any, path string) string {
	if s := Strings(body, path); len(s) > 0 {
		return s[0]
	}
	return ""
}

// FromFields rebuilds a document's JSON object from its fields (a bleve
// document's stored fields, or a mapped document's): text as strings,
// numbers, dates (in the layout they were read in, else RFC 3339),
// booleans and geo points ({"lon","lat"}), dotted names as nested
// objects and repeated names as arrays, in their array positions' order.
// It is what a document holds once its data is gone: fields that were
// only indexed, not stored, are not in it.
func FromFields(doc index.Document) map[string]any {
	type entry struct {
		pos []uint64
		val any
	}
	byName := map[string][]entry{}
	var names []string
	doc.VisitFields(func(f index.Field) {
		var v any
		switch f := f.(type) {
		case *document.TextField:
			v = f.Text()
		case *document.NumericField:
			n, err := f.Number()
			if err != nil {
				return
			}
			v = n
		case *document.DateTimeField:
			t, layout, err := f.DateTime()
			if err != nil {
				return
			}
			// In the layout it was given in, which bleve stores with it,
			// when that is a Go layout that reads back the same instant.
			v = t.Format(time.RFC3339Nano)
			if s := t.Format(layout); layout != "" {
				if back, err := time.Parse(layout, s); err == nil && back.Equal(t) {
					v = s
				}
			}
		case *document.BooleanField:
			b, err := f.Boolean()
			if err != nil {
				return
			}
			v = b
		case *document.GeoPointField:
			lon, err1 := f.Lon()
			lat, err2 := f.Lat()
			if err1 != nil || err2 != nil {
				return
			}
			v = map[string]any{"lon": lon, "lat": lat}
		default:
			return
		}
		if _, ok := byName[f.Name()]; !ok {
			names = append(names, f.Name())
		}
		byName[f.Name()] = append(byName[f.Name()], entry{slices.Clone(f.ArrayPositions()), v})
	})
	body := map[string]any{}
	for _, name := range names {
		es := byName[name]
		slices.SortStableFunc(es, func(a, b entry) int { return slices.Compare(a.pos, b.pos) })
		var v any
		if len(es) == 1 && len(es[0].pos) == 0 {
			v = es[0].val
		} else {
			vals := make([]any, len(es))
			for i, e := range es {
				vals[i] = e.val
			}
			v = vals
		}
		setPath(body, name, v)
	}
	return body
}

// setPath sets body's value at a dotted path, making the nested objects.
func setPath(body map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := body
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// Unstored lists the fields m indexes without storing them, and
// "(dynamic)" when m indexes dynamic fields without storing them: what
// FromFields cannot give back. A mapping that is not bleve's
// IndexMappingImpl cannot be told: nothing is listed.
func Unstored(m mapping.IndexMapping) []string {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return nil
	}
	var out []string
	var walk func(prefix string, dm *mapping.DocumentMapping)
	walk = func(prefix string, dm *mapping.DocumentMapping) {
		if dm == nil || !dm.Enabled {
			return
		}
		if dm.Dynamic && im.IndexDynamic && !im.StoreDynamic && !slices.Contains(out, "(dynamic)") {
			out = append(out, "(dynamic)")
		}
		for name, sub := range dm.Properties {
			walk(prefix+name+".", sub)
		}
		for _, fm := range dm.Fields {
			name := strings.TrimSuffix(prefix, ".")
			if fm.Name != "" {
				name = prefix + fm.Name
			}
			if fm.Index && !fm.Store && fm.Type != "vector" && fm.Type != "vector_base64" {
				out = append(out, name)
			}
		}
	}
	walk("", im.DefaultMapping)
	for _, dm := range im.TypeMapping {
		walk("", dm)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Rebuilds reports whether FromFields, over the stored fields of a
// document m mapped, gives back a body that m maps to the same fields:
// every field m makes is stored, with a type FromFields reads, and
// nothing the body holds is left out. It returns nil when it does, else
// what stands in the way.
//
// Left out are mappings that are not bleve's IndexMappingImpl, type
// mappings (the type a document was mapped as may come from its Go type,
// which its stored fields do not keep), disabled or non-dynamic document
// mappings (they drop what they do not name), dynamic fields not stored,
// a property mapped to several fields or under another name, and date
// parsers that do not read back the RFC 3339 dates FromFields writes.
func Rebuilds(m mapping.IndexMapping) error {
	im, ok := m.(*mapping.IndexMappingImpl)
	switch {
	case !ok:
		return fmt.Errorf("a mapping of type %T, not bleve's", m)
	case len(im.TypeMapping) > 0:
		return errors.New("type mappings")
	}
	reads := func(parser string) error {
		p := im.DateTimeParserNamed(parser)
		if p == nil {
			return fmt.Errorf("date parser %q unknown", parser)
		}
		want := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
		got, _, err := p.ParseDateTime(want.Format(time.RFC3339Nano))
		if err != nil || !got.Equal(want) {
			return fmt.Errorf("date parser %q does not read RFC 3339 dates back", cmp.Or(parser, im.DefaultDateTimeParser))
		}
		return nil
	}
	var walk func(path string, dm *mapping.DocumentMapping) error
	walk = func(path string, dm *mapping.DocumentMapping) error {
		where := cmp.Or(path, "the default mapping")
		switch {
		case dm == nil:
			return nil
		case !dm.Enabled:
			return fmt.Errorf("%s is disabled", where)
		case !dm.Dynamic:
			return fmt.Errorf("%s is not dynamic", where)
		case len(dm.Fields) > 1:
			return fmt.Errorf("%s is mapped to %d fields", where, len(dm.Fields))
		}
		for _, fm := range dm.Fields {
			switch {
			case fm.Name != "" && fm.Name != path[strings.LastIndexByte(path, '.')+1:]:
				return fmt.Errorf("%s is mapped as %q", where, fm.Name)
			case !fm.Store:
				return fmt.Errorf("%s is not stored", where)
			case fm.Type == "datetime":
				if err := reads(fm.DateFormat); err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
			case fm.Type != "text" && fm.Type != "number" && fm.Type != "boolean" && fm.Type != "geopoint":
				return fmt.Errorf("%s is of type %s", where, fm.Type)
			}
		}
		for name, sub := range dm.Properties {
			if err := walk(strings.TrimPrefix(path+"."+name, "."), sub); err != nil {
				return err
			}
		}
		return nil
	}
	if !im.StoreDynamic {
		return errors.New("dynamic fields are not stored")
	}
	if err := reads(""); err != nil {
		return err
	}
	return walk("", im.DefaultMapping)
}
