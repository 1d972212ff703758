package indexer

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/mapping"
)

// The fields Options name are checked, so that a misnamed one is an
// error rather than a filter that silently reads nothing: the text fields
// against an explicit mapping by Wrap (checkMappingFields), and every one
// in each document by Index and Batch (checkDocFields).

// wrapField is a field Options name, with the option naming it.
type wrapField struct{ path, option string }

func (f wrapField) String() string { return fmt.Sprintf("%q (Options.%s)", f.path, f.option) }

// fields lists the fields the Index reads: HTMLField or else
// TextFields, then TitleField and URLField, those set.
func (o Options) fields() []wrapField {
	var out []wrapField
	if o.HTMLField != "" {
		out = append(out, wrapField{o.HTMLField, "HTMLField"})
	} else {
		for _, f := range o.TextFields {
			out = append(out, wrapField{f, "TextFields"})
		}
	}
	if o.TitleField != "" {
		out = append(out, wrapField{o.TitleField, "TitleField"})
	}
	if o.URLField != "" {
		out = append(out, wrapField{o.URLField, "URLField"})
	}
	return out
}

// namesOf joins the fields' names and options for a message.
func namesOf(fs []wrapField) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	if len(s) == 1 {
		return "field " + s[0]
	}
	return "fields " + strings.Join(s, ", ")
}

// listOf is names for a message: "none" when there are none.
func listOf(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkDocFields returns an error naming each field the Index reads
// that a document does not have, and the fields it has, as bleve names
// them (JSON tags, map keys, dotted paths); nil when it has them all.
// body is the document's JSON object, data (nil when not known) the value
// it was added with, whose type tells first where it can: a struct field
// omitted from body for being empty (omitempty) is still the document's,
// empty. A field present but empty (an empty string, null, an empty
// array) is no error: an empty page is legitimate. A path that ends at
// an object, not a value, is no field.
func checkDocFields(fs []wrapField, body map[string]any, data any) error {
	var missing []wrapField
	for _, f := range fs {
		parts := strings.Split(f.path, ".")
		has, known := false, false
		if data != nil {
			has, known = typeHas(reflect.TypeOf(data), parts)
		}
		if !known {
			has = bodyHas(body, parts)
		}
		if has {
			continue
		}
		missing = append(missing, f)
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("no %s in the document; its fields, as bleve names them: %s: %w",
		namesOf(missing), listOf(docFieldNames(body, data)), ErrInvalidDocument)
}

// bodyHas tells whether v, a value decoded from JSON, has a value at the
// path parts: an array stands for each of its elements, and an empty
// array or a null on the way tells nothing (the field is taken as there,
// empty).
func bodyHas(v any, parts []string) bool {
	switch v := v.(type) {
	case map[string]any:
		if len(parts) == 0 {
			return false // an object, not a field
		}
		x, ok := v[parts[0]]
		return ok && bodyHas(x, parts[1:])
	case []any:
		if len(v) == 0 {
			return true
		}
		return slices.ContainsFunc(v, func(e any) bool { return bodyHas(e, parts) })
	case nil:
		return true
	default:
		return len(parts) == 0
	}
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshalsItself tells whether t encodes as JSON by a method of its own
// (time.Time, for one): what it holds cannot be told from its type.
func marshalsItself(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// typeHas tells whether the Go type t has a value at the path parts, by
// the names encoding/json gives its struct fields, and whether its type
// tells: a map or an interface on the way, or at the end, does not (nor
// does a type that encodes itself), and the value, decoded, tells then.
// A nil pointer on the way is a value there, empty.
func typeHas(t reflect.Type, parts []string) (has, known bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return false, false
	}
	switch t.Kind() {
	case reflect.Map, reflect.Interface:
		return false, false
	case reflect.Struct:
		if marshalsItself(t) {
			return len(parts) == 0, len(parts) == 0
		}
		if len(parts) == 0 {
			return false, true // an object, not a value
		}
		f, ok := jsonField(t, parts[0])
		if !ok {
			return false, true
		}
		return typeHas(f.Type, parts[1:])
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); len(parts) == 0 && (e.Kind() == reflect.Uint8 || e.Kind() == reflect.Interface) {
			return true, true // bytes (a string in JSON), or an array of values
		}
		return typeHas(t.Elem(), parts)
	}
	return len(parts) == 0, true
}

// jsonFields calls fn with each of struct type t's fields encoding/json
// encodes, and its name there, embedded structs' fields flattened
// (roughly as encoding/json does: a name of the outer struct comes first).
func jsonFields(t reflect.Type, fn func(name string, f reflect.StructField) bool) bool {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && !strings.HasPrefix(tag, "-,") {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			embedded = append(embedded, ft)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !fn(name, f) {
			return false
		}
	}
	for _, e := range embedded {
		if !jsonFields(e, fn) {
			return false
		}
	}
	return true
}

// jsonField is struct type t's field of JSON name name.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	var found reflect.StructField
	ok := false
	jsonFields(t, func(n string, f reflect.StructField) bool {
		if n == name {
			found, ok = f, true
		}
		return !ok
	})
	return found, ok
}

// docFieldNames lists a document's fields as bleve names them, sorted:
// the paths to the values of body, and those data's type has (a struct
// field omitted for being empty among them).
func docFieldNames(body map[string]any, data any) []string {
	var out []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(joinPath(prefix, k), x)
			}
		case []any:
			if len(v) == 0 && prefix != "" {
				out = append(out, prefix)
			}
			for _, x := range v {
				walk(prefix, x)
			}
		default:
			if prefix != "" {
				out = append(out, prefix)
			}
		}
	}
	walk("", body)
	if data != nil {
		out = append(out, typeFieldNames(reflect.TypeOf(data))...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// typeFieldNames lists the paths to the values struct type t holds by
// its type (not through maps or interfaces, whose values list theirs).
func typeFieldNames(t reflect.Type) []string {
	var out []string
	var seen []reflect.Type // the structs being walked: a type may hold itself
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		if has, known := typeHas(t, nil); prefix != "" && has && known {
			out = append(out, prefix)
			return
		}
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || marshalsItself(t) || slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		jsonFields(t, func(name string, f reflect.StructField) bool {
			walk(joinPath(prefix, name), f.Type)
			return true
		})
		seen = seen[:len(seen)-1]
	}
	walk("", t)
	return out
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// checkMappingFields returns an error naming each field the Index reads
// that m cannot hold, and the fields m has: where m is explicit about
// it. A document mapping (the default one, or any of a type) takes a
// field at a path it names, or anywhere its nearest mapping along the
// path is dynamic; a field none of them takes is one no document can
// have, as far as the index goes. A mapping that is not bleve's own, or
// whose mappings are all disabled, tells nothing: each document is
// checked as it comes (checkDocFields).
func checkMappingFields(fs []wrapField, m mapping.IndexMapping) error {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return nil
	}
	var dms []*mapping.DocumentMapping
	if im.DefaultMapping != nil && im.DefaultMapping.Enabled {
		dms = append(dms, im.DefaultMapping)
	}
	for _, dm := range im.TypeMapping {
		if dm != nil && dm.Enabled {
			dms = append(dms, dm)
		}
	}
	if len(dms) == 0 {
		return nil
	}
	var missing []wrapField
	for _, f := range fs {
		parts := strings.Split(f.path, ".")
		if !slices.ContainsFunc(dms, func(dm *mapping.DocumentMapping) bool { return mappingTakes(dm, parts) }) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var names []string
	for _, dm := range dms {
		names = append(names, mappingFieldNames("", dm)...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return fmt.Errorf("indexer: wrap: no %s in the index's mapping, which takes no other fields (not dynamic); its fields: %s: %w",
		namesOf(missing), listOf(names), ErrInvalidOptions)
}

// mappingTakes tells whether dm takes a field at the path parts: it names
// the path, or the nearest mapping along it is dynamic.
func mappingTakes(dm *mapping.DocumentMapping, parts []string) bool {
	for _, p := range parts {
		sub, ok := dm.Properties[p]
		if !ok || sub == nil {
			return dm.Dynamic
		}
		dm = sub
	}
	return true
}

// mappingFieldNames lists the paths dm names (its fields' and
// sub-mappings' without any of their own).
func mappingFieldNames(prefix string, dm *mapping.DocumentMapping) []string {
	var out []string
	for name, sub := range dm.Properties {
		path := joinPath(prefix, name)
		if sub == nil || len(sub.Properties) == 0 || len(sub.Fields) > 0 {
			out = append(out, path)
		}
		if sub != nil {
			out = append(out, mappingFieldNames(path, sub)...)
		}
	}
	return out
}
