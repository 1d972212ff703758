package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bleve-dedup/bleve-dedup/server"
)

// openAPIDoc is the part of the OpenAPI document the test reads.
type openAPIDoc struct {
	Paths map[string]map[string]struct {
		Parameters []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
			Example  any    `json:"example"`
		} `json:"parameters"`
		Responses map[string]struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPI checks the OpenAPI document the server serves against its
// handlers: it names every endpoint and no other, and the answer of each
// GET to the document's example parameters (and an error) validates
// against the schema it documents — every field documented, every
// required one present, of its type.
func TestOpenAPI(t *testing.T) {
	ix := fixture(t)
	o := server.DefaultOptions()
	o.Ingest = server.DefaultIngest(ix)
	s := newServer(t, ix, o)
	r := do(t, s, "GET", "/api/openapi.json")
	if r.status != 200 {
		t.Fatalf("/api/openapi.json: status %d", r.status)
	}
	var doc openAPIDoc
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for p := range doc.Paths {
		documented = append(documented, p)
	}
	sort.Strings(documented)
	if routes := server.Routes(s); !slices.Equal(documented, routes) {
		t.Errorf("documented paths %v, want the routes %v", documented, routes)
	}
	for _, path := range documented {
		op, ok := doc.Paths[path]["get"]
		if !ok || path == "/metrics" {
			continue
		}
		q := url.Values{}
		for _, p := range op.Parameters {
			if p.Example != nil {
				q.Set(p.Name, fmt.Sprint(p.Example))
			} else if p.Required {
				t.Errorf("%s: required parameter %s has no example", path, p.Name)
			}
		}
		target := path
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		r := do(t, s, "GET", target)
		status := fmt.Sprint(r.status)
		resp, ok := op.Responses[status]
		if !ok || r.status != 200 {
			t.Errorf("GET %s: status %s (%s), want 200", target, status, r.body)
			continue
		}
		var body any
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Errorf("GET %s: %v", target, err)
			continue
		}
		for _, e := range validate(doc, resp.Content["application/json"].Schema, body, path) {
			t.Errorf("GET %s: %s", target, e)
		}
	}
	// An error answer has the documented form too.
	r = do(t, s, "GET", "/api/search?q="+url.QueryEscape("bees AND (tide"))
	var body any
	json.Unmarshal([]byte(r.body), &body)
	schema := doc.Paths["/api/search"]["get"].Responses["4XX"].Content["application/json"].Schema
	if errs := validate(doc, schema, body, "error"); r.status != 400 || len(errs) > 0 {
		t.Errorf("bad query: status %d, errors %v, want 400 with an Error", r.status, errs)
	}
}

// validate checks v against a JSON schema of the document (the keywords
// it uses: $ref, type, properties, required, additionalProperties,
// items, enum) and returns what does not fit.
func validate(doc openAPIDoc, schema map[string]any, v any, at string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		return validate(doc, doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")], v, at)
	}
	var errs []string
	if typ, ok := schema["type"]; ok {
		types := []string{}
		switch typ := typ.(type) {
		case string:
			types = append(types, typ)
		case []any:
			for _, x := range typ {
				types = append(types, x.(string))
			}
		}
		if !slices.Contains(types, jsonType(v)) && !(jsonType(v) == "integer" && slices.Contains(types, "number")) {
			return []string{fmt.Sprintf("%s: %s, want %v", at, jsonType(v), types)}
		}
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		errs = append(errs, fmt.Sprintf("%s: %v not in %v", at, v, enum))
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asStrings(schema["required"]) {
			if _, ok := v[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required %q missing", at, r))
			}
		}
		for k, x := range v {
			if p, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(doc, p, x, at+"."+k)...)
				continue
			}
			switch extra := schema["additionalProperties"].(type) {
			case bool:
				if !extra {
					errs = append(errs, fmt.Sprintf("%s: %q not documented", at, k))
				}
			case map[string]any:
				errs = append(errs, validate(doc, extra, x, at+"."+k)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, validate(doc, items, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return errs
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, x.(string))
		}
	}
	return out
}
