package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The meith struct tags on input fields; see [Register].
const (
	tagEnum    = "enum"
	tagDefault = "default"
	tagMinimum = "minimum"
	tagMaximum = "maximum"
	// tagMaxLength bounds the characters of a string (or of each string of
	// a list); tagMaxItems bounds the items of a list.
	tagMaxLength = "maxLength"
	tagMaxItems  = "maxItems"
)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// SchemaFor returns the JSON Schema [Register] infers for the input type In,
// with the meith struct tags applied. It fails where Register would panic.
func SchemaFor[In any]() (json.RawMessage, error) {
	s, err := inferSchema(reflect.TypeFor[In]())
	if err != nil {
		return nil, err
	}
	return marshalSchema(s)
}

// inferSchema builds the input schema of a tool from its Go input type.
func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("input type %v is not a struct (use registry.NoArgs for a tool without input)", t)
	}
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	if err := applyTags(t, s, ""); err != nil {
		return nil, err
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return nil, fmt.Errorf("resolve input schema: %w", err)
	}
	return s, nil
}

func marshalSchema(s *jsonschema.Schema) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("marshal input schema: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("input schema is not a JSON object: %s", b)
	}
	return objectSchemas(b)
}

// objectSchemas rewrites the "true" schemas jsonschema-go marshals for
// unconstrained properties and items (any, json.RawMessage) as {}, keeping
// the key order, so every property schema in a descriptor is an object.
func objectSchemas(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "true" {
		return json.RawMessage(`{}`), nil
	}
	return rewriteObject(raw, func(key string, val json.RawMessage) (json.RawMessage, error) {
		switch key {
		case "items", "additionalProperties":
			return objectSchemas(val)
		case "properties":
			return rewriteObject(val, func(_ string, v json.RawMessage) (json.RawMessage, error) {
				return objectSchemas(v)
			})
		}
		return val, nil
	})
}

// rewriteObject re-encodes a JSON object with each value passed through f,
// keeping the key order. Anything but an object is returned as is.
func rewriteObject(raw json.RawMessage, f func(key string, val json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return raw, nil
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("rewrite schema: %w", err)
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("rewrite schema: %w", err)
		}
		if val, err = f(key, val); err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		kb, err := json.Marshal(key)
		if err != nil {
			return nil, fmt.Errorf("rewrite schema: %w", err)
		}
		out.Write(kb)
		out.WriteByte(':')
		out.Write(val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// applyTags walks the Go type t alongside its inferred schema s: it turns
// json.RawMessage (inferred as an array of bytes) into "any value", makes
// sure struct objects refuse unknown properties, and applies the meith field
// tags. path names the position for error messages.
func applyTags(t reflect.Type, s *jsonschema.Schema, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		*s = jsonschema.Schema{Description: s.Description}
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(t.Elem(), s.Items, path+"[]")
	case reflect.Map:
		return applyTags(t.Elem(), s.AdditionalProperties, joinPath(path, "*"))
	case reflect.Struct:
		if !hasType(s, "object") {
			return nil // a type with its own JSON form, such as time.Time
		}
		if s.AdditionalProperties == nil {
			s.AdditionalProperties = falseSchema()
		}
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			ps := s.Properties[name]
			if ps == nil {
				continue
			}
			fpath := joinPath(path, name)
			if err := applyTags(f.Type, ps, fpath); err != nil {
				return err
			}
			optional, err := applyFieldTags(f, ps, fpath)
			if err != nil {
				return err
			}
			if optional {
				s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
				if len(s.Required) == 0 {
					s.Required = nil
				}
			}
		}
	}
	return nil
}

// applyFieldTags applies enum, minimum, maximum, maxLength, maxItems and
// default to the property
// schema ps of field f. It reports whether the field became optional (it
// has a default).
func applyFieldTags(f reflect.StructField, ps *jsonschema.Schema, path string) (optional bool, err error) {
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	// enum, minimum and maximum constrain a scalar, or each item of a list of
	// scalars.
	target, tt := ps, ft
	if (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && ft != rawMessageType && ps.Items != nil {
		target, tt = ps.Items, ft.Elem()
		for tt.Kind() == reflect.Pointer {
			tt = tt.Elem()
		}
	}
	if tag, ok := f.Tag.Lookup(tagEnum); ok {
		vals, err := parseEnum(tag, tt)
		if err != nil {
			return false, fmt.Errorf("field %q: bad enum tag %q: %w", path, tag, err)
		}
		if slices.Contains(target.Types, "null") {
			vals = append(vals, nil)
		}
		target.Enum = vals
	}
	for _, b := range []struct {
		tag   string
		dst   **float64
		lower bool
	}{{tagMinimum, &target.Minimum, true}, {tagMaximum, &target.Maximum, false}} {
		tag, ok := f.Tag.Lookup(b.tag)
		if !ok {
			continue
		}
		v, err := parseBound(tag, tt, *b.dst, b.lower)
		if err != nil {
			return false, fmt.Errorf("field %q: bad %s tag %q: %w", path, b.tag, tag, err)
		}
		*b.dst = &v
	}
	if target.Minimum != nil && target.Maximum != nil && *target.Minimum > *target.Maximum {
		return false, fmt.Errorf("field %q: minimum %s is greater than maximum %s",
			path, formatFloat(*target.Minimum), formatFloat(*target.Maximum))
	}
	if err := applyLengthTags(f, ps, target, ft, tt, path); err != nil {
		return false, err
	}
	if target.Enum != nil && (target.Minimum != nil || target.Maximum != nil) {
		for _, e := range target.Enum {
			if e == nil {
				continue
			}
			var v validator
			v.check(path, json.Number(fmt.Sprint(e)), target)
			if len(v.issues) > 0 {
				return false, fmt.Errorf("field %q: enum value %v is out of bounds: %s", path, e, v.issues[0].Message)
			}
		}
	}
	tag, ok := f.Tag.Lookup(tagDefault)
	if !ok {
		return false, nil
	}
	def, err := parseDefault(tag, f.Type)
	if err != nil {
		return false, fmt.Errorf("field %q: bad default tag %q: %w", path, tag, err)
	}
	var inst any
	if err := decodeJSON(def, &inst); err != nil {
		return false, fmt.Errorf("field %q: bad default tag %q: %w", path, tag, err)
	}
	var v validator
	v.check(path, inst, ps)
	if len(v.issues) > 0 {
		return false, fmt.Errorf("field %q: bad default tag %q: %s", path, tag, v.issues[0].Message)
	}
	ps.Default = def
	return true, nil
}

// applyLengthTags applies maxLength to a string field (target, of type tt:
// the field or each item of a list) and maxItems to a list field (ps, of
// type ft).
func applyLengthTags(f reflect.StructField, ps, target *jsonschema.Schema, ft, tt reflect.Type, path string) error {
	for _, b := range []struct {
		tag  string
		ok   bool // the field's type takes the tag
		what string
		dst  **int
	}{
		{tagMaxLength, tt.Kind() == reflect.String, "a string field (or a list of strings)", &target.MaxLength},
		{tagMaxItems, (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && ft != rawMessageType, "a list field", &ps.MaxItems},
	} {
		tag, ok := f.Tag.Lookup(b.tag)
		if !ok {
			continue
		}
		if !b.ok {
			return fmt.Errorf("field %q: bad %s tag %q: it needs %s, not %s", path, b.tag, tag, b.what, f.Type)
		}
		n, err := strconv.Atoi(strings.TrimSpace(tag))
		if err != nil || n < 0 {
			return fmt.Errorf("field %q: bad %s tag %q: not a non-negative integer", path, b.tag, tag)
		}
		*b.dst = &n
	}
	return nil
}

// parseEnum parses a comma-separated enum tag for values of type t.
func parseEnum(tag string, t reflect.Type) ([]any, error) {
	if strings.TrimSpace(tag) == "" {
		return nil, errors.New("no values")
	}
	parts := strings.Split(tag, ",")
	vals := make([]any, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		var v any
		switch {
		case t.Kind() == reflect.String:
			if p == "" {
				return nil, errors.New("empty value")
			}
			v = p
		case isInt(t.Kind()):
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not an integer", p)
			}
			v = n
		case isUint(t.Kind()):
			n, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a non-negative integer", p)
			}
			v = n
		default:
			return nil, fmt.Errorf("enum needs a string or integer field, not %s", t)
		}
		for _, old := range vals {
			if old == v {
				return nil, fmt.Errorf("value %q is listed twice", p)
			}
		}
		vals = append(vals, v)
	}
	return vals, nil
}

// parseBound parses a minimum (lower) or maximum tag for numbers of type t;
// it may only narrow the bound the type already implies (old).
func parseBound(tag string, t reflect.Type, old *float64, lower bool) (float64, error) {
	if !isInt(t.Kind()) && !isUint(t.Kind()) && !isFloat(t.Kind()) {
		return 0, fmt.Errorf("bounds need a number field, not %s", t)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(tag), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not a number")
	}
	if (isInt(t.Kind()) || isUint(t.Kind())) && v != math.Trunc(v) {
		return 0, fmt.Errorf("%s is not an integer", tag)
	}
	if old != nil && ((lower && v < *old) || (!lower && v > *old)) {
		return 0, fmt.Errorf("%s is outside the range of %s", tag, t)
	}
	return v, nil
}

// parseDefault turns a default tag into the JSON of a value of type t.
func parseDefault(tag string, t reflect.Type) (json.RawMessage, error) {
	ft := t
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	var raw []byte
	switch k := ft.Kind(); {
	case k == reflect.String:
		raw, _ = json.Marshal(tag)
	case k == reflect.Bool:
		b, err := strconv.ParseBool(tag)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", tag)
		}
		raw = []byte(strconv.FormatBool(b))
	case isInt(k):
		n, err := strconv.ParseInt(tag, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", tag)
		}
		raw = []byte(strconv.FormatInt(n, 10))
	case isUint(k):
		n, err := strconv.ParseUint(tag, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a non-negative integer", tag)
		}
		raw = []byte(strconv.FormatUint(n, 10))
	case isFloat(k):
		f, err := strconv.ParseFloat(tag, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number", tag)
		}
		raw = []byte(formatFloat(f))
	default:
		if !json.Valid([]byte(tag)) {
			return nil, fmt.Errorf("%q is not valid JSON", tag)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(tag)); err != nil {
			return nil, fmt.Errorf("compact default: %w", err)
		}
		raw = buf.Bytes()
	}
	// The value must also decode into the field.
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return nil, fmt.Errorf("does not fit %s: %w", t, err)
	}
	return raw, nil
}

// jsonName returns the JSON key of a struct field as encoding/json (and
// jsonschema-go) see it, and false for fields left out of JSON.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return f.Name, true
	}
	name, _, found := strings.Cut(tag, ",")
	if name == "-" && !found {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// isFalseSchema reports whether s is the schema that refuses everything.
func isFalseSchema(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

func hasType(s *jsonschema.Schema, typ string) bool {
	return s.Type == typ || slices.Contains(s.Types, typ)
}

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

func isUint(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func isFloat(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
