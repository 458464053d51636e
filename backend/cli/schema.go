package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// propSchema is the part of a JSON Schema property the CLI understands.
type propSchema struct {
	Type        json.RawMessage   `json:"type"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Items       *propSchema       `json:"items"`
	AnyOf       []propSchema      `json:"anyOf"`
	OneOf       []propSchema      `json:"oneOf"`
	Description string            `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
}

// types returns the JSON types s accepts ("string", "integer", …), looking
// through anyOf/oneOf. Empty means unknown. s may be nil.
func (s *propSchema) types() map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	for _, t := range s.typeList() {
		out[t] = true
	}
	return out
}

// typeList is types in declaration order, "null" excluded.
func (s *propSchema) typeList() []string {
	if s == nil {
		return nil
	}
	var list []string
	add := func(t string) {
		if t == "null" {
			return
		}
		for _, have := range list {
			if have == t {
				return
			}
		}
		list = append(list, t)
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(s.Type, &one) == nil && one != "":
		add(one)
	case json.Unmarshal(s.Type, &many) == nil:
		for _, t := range many {
			add(t)
		}
	}
	for _, alts := range [][]propSchema{s.AnyOf, s.OneOf} {
		for i := range alts {
			for _, t := range alts[i].typeList() {
				add(t)
			}
		}
	}
	if len(list) == 0 && len(s.Enum) > 0 {
		for _, e := range s.Enum {
			add(jsonTypeOf(e))
		}
	}
	return list
}

func jsonTypeOf(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return ""
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// typeLabel renders the accepted types for help: "string", "integer|string",
// "string[]", "a|b|c" for a string enum, "json" when unknown.
func (s *propSchema) typeLabel() string {
	if s == nil {
		return "json"
	}
	var labels []string
	for _, t := range s.typeList() {
		if t == "array" {
			item := "json"
			if s.Items != nil {
				item = s.Items.typeLabel()
				if strings.Contains(item, "|") {
					item = "(" + item + ")"
				}
			}
			labels = append(labels, item+"[]")
			continue
		}
		labels = append(labels, t)
	}
	if len(labels) == 0 {
		return "json"
	}
	return strings.Join(labels, "|")
}

// schemaProperty is one named property, in schema order.
type schemaProperty struct {
	Name     string
	Schema   propSchema
	Required bool
}

// objectSchema is the top level of a tool's input schema.
type objectSchema struct {
	Properties json.RawMessage `json:"properties"`
	Required   []string        `json:"required"`
}

// parseSchemaProps returns the properties of an object schema by name.
// A nil, invalid or non-object schema gives an empty map.
func parseSchemaProps(schema json.RawMessage) map[string]*propSchema {
	out := map[string]*propSchema{}
	props, _ := orderedProperties(schema)
	for i := range props {
		out[props[i].Name] = &props[i].Schema
	}
	return out
}

// orderedProperties returns the properties of an object schema in the order
// the schema lists them.
func orderedProperties(schema json.RawMessage) ([]schemaProperty, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	var top objectSchema
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if len(bytes.TrimSpace(top.Properties)) == 0 || string(bytes.TrimSpace(top.Properties)) == "null" {
		return nil, nil
	}
	required := map[string]bool{}
	for _, r := range top.Required {
		required[r] = true
	}
	d := json.NewDecoder(bytes.NewReader(top.Properties))
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, fmt.Errorf("input schema: properties is not an object")
	}
	var out []schemaProperty
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, err
		}
		p := schemaProperty{Name: name, Required: required[name]}
		_ = json.Unmarshal(raw, &p.Schema) // a property we cannot read is still listed
		out = append(out, p)
	}
	return out, nil
}
