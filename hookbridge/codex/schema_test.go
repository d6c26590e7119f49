package codex

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// schema is the part of JSON Schema (draft 7) that Codex 0.171.0's hook
// schemas use: type (one or a list), properties, additionalProperties
// (false or a schema), required, const, enum, allOf, items, $ref into
// definitions, minimum, and format uint/int64 on integers. Anything else
// in a schema fails the check, so a schema that needs more is not
// silently half-checked.
type schema struct {
	root *node
}

type node map[string]any

// known are the keywords validate understands or, for the annotations,
// ignores on purpose.
var known = map[string]bool{
	"$schema": true, "title": true, "description": true, "default": true, "definitions": true,
	"type": true, "properties": true, "additionalProperties": true, "required": true,
	"const": true, "enum": true, "allOf": true, "items": true, "$ref": true, "minimum": true, "format": true,
}

func loadSchema(t *testing.T, name string) *schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	var root node
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	return &schema{root: &root}
}

// validate checks a JSON document against the schema: nil, or the first
// problem found.
func (s *schema) validate(doc []byte) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return s.check(*s.root, v, "$")
}

func (s *schema) resolve(ref string) (node, error) {
	const prefix = "#/definitions/"
	if !strings.HasPrefix(ref, prefix) {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	defs, _ := (*s.root)["definitions"].(map[string]any)
	d, ok := defs[strings.TrimPrefix(ref, prefix)].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no definition %q", ref)
	}
	return d, nil
}

// sub checks a subschema, which may be a boolean (true: anything, false:
// nothing).
func (s *schema) sub(sch any, v any, at string) error {
	switch x := sch.(type) {
	case bool:
		if !x {
			return fmt.Errorf("%s: nothing is allowed here", at)
		}
		return nil
	case map[string]any:
		return s.check(x, v, at)
	}
	return fmt.Errorf("%s: a subschema that is neither an object nor a boolean", at)
}

func (s *schema) check(n node, v any, at string) error {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return fmt.Errorf("%s: schema keyword %q is not supported by this check", at, k)
		}
	}
	if ref, ok := n["$ref"].(string); ok {
		d, err := s.resolve(ref)
		if err != nil {
			return err
		}
		if err := s.check(d, v, at); err != nil {
			return err
		}
	}
	if all, ok := n["allOf"].([]any); ok {
		for _, x := range all {
			if err := s.sub(x, v, at); err != nil {
				return err
			}
		}
	}
	if t, ok := n["type"]; ok && !typeMatches(t, v) {
		return fmt.Errorf("%s: %s is not of type %v", at, short(v), t)
	}
	if c, ok := n["const"]; ok && !sameValue(c, v) {
		return fmt.Errorf("%s: %s is not the constant %v", at, short(v), c)
	}
	if e, ok := n["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || sameValue(x, v)
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %v", at, short(v), e)
		}
	}
	if min, ok := n["minimum"].(float64); ok {
		if num, isNum := v.(json.Number); isNum {
			if f, _ := num.Float64(); f < min {
				return fmt.Errorf("%s: %s is below the minimum %v", at, num, min)
			}
		}
	}
	if f, ok := n["format"].(string); ok {
		if num, isNum := v.(json.Number); isNum {
			switch f {
			case "uint", "uint64", "int64":
				i, err := num.Int64()
				if err != nil || strings.HasPrefix(f, "uint") && i < 0 {
					return fmt.Errorf("%s: %s is not a %s", at, num, f)
				}
			default:
				return fmt.Errorf("%s: format %q is not supported by this check", at, f)
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := n["properties"].(map[string]any)
		if req, ok := n["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					return fmt.Errorf("%s: required member %q is missing", at, r)
				}
			}
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if p, ok := props[k]; ok {
				if err := s.sub(p, x[k], at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := n["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: member %q is not allowed (additionalProperties: false)", at, k)
				}
			case map[string]any:
				if err := s.check(ap, x[k], at+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if items, ok := n["items"]; ok {
			for i, e := range x {
				if err := s.sub(items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return isType(tt, v)
	case []any:
		for _, x := range tt {
			if s, ok := x.(string); ok && isType(s, v) {
				return true
			}
		}
	}
	return false
}

func isType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	}
	return false
}

func sameValue(schemaVal, v any) bool {
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		return reflect.DeepEqual(schemaVal, f)
	}
	return reflect.DeepEqual(schemaVal, v)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// The check itself can fail: each rule of the subset rejects what breaks it.
func TestSchemaCheckRejects(t *testing.T) {
	s := loadSchema(t, "pre-tool-use.command.output.json")
	for _, doc := range []string{
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"},"extra":1}`, // unknown member
		`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}`,          // const
		`{"hookSpecificOutput":{"additionalContext":"x"}}`,                                        // required
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":3}}`,             // type
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`,      // enum through allOf and $ref
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","x":1}}`,                             // nested additionalProperties
		`{"continue":"yes"}`,
		`[]`,
		`{} {}`,
	} {
		if err := s.validate([]byte(doc)); err == nil {
			t.Errorf("accepted %s", doc)
		}
	}
	if err := s.validate([]byte(`{"continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}`)); err != nil {
		t.Errorf("rejected a valid answer: %v", err)
	}
}
