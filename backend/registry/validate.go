package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/meith-dev/meith/backend/redact"
)

// Issue is one problem found in a call's arguments. Path is the dotted
// position of the argument ("options.depth", "paths[2]"; empty for the
// arguments object itself).
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ValidationDetails is the details value of a VALIDATION_ERROR result:
// {"issues":[{"path":…,"message":…}]}, the first issue being the one named
// in the error message.
type ValidationDetails struct {
	Issues []Issue `json:"issues"`
}

// validator checks a JSON value, decoded with json.Number numbers, against
// the subset of JSON Schema that [inferSchema] produces: type, enum, const,
// minimum/maximum (and exclusive), minLength/maxLength, minItems/maxItems,
// items, properties, required and additionalProperties. It collects every
// issue rather than stopping at the first.
type validator struct {
	issues []Issue
}

// add records an issue. Its message never quotes an argument's value
// (which may be a secret): it names the argument and says what kind of
// value it got. Names are kept, and the message and path still go through
// the value scanner ([redact.String]), since a key can be anything.
func (v *validator) add(path, format string, args ...any) {
	v.issues = append(v.issues, issue(path, fmt.Sprintf(format, args...)))
}

// issue is an Issue with its path and message redacted.
func issue(path, msg string) Issue {
	return Issue{Path: redact.String(path), Message: redact.String(msg)}
}

// check validates val at path against s.
func (v *validator) check(path string, val any, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if isFalseSchema(s) {
		v.add(path, "%s is not allowed", argName(path))
		return
	}
	if !v.checkType(path, val, s) {
		return
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, val) }) {
		v.add(path, "%s must be one of %s, got %s not in the list", argName(path), listValues(s.Enum), describe(val))
		return
	}
	if s.Const != nil && !jsonEqual(*s.Const, val) {
		v.add(path, "%s must be %s, got %s", argName(path), literal(*s.Const), describeOther(val))
		return
	}
	switch x := val.(type) {
	case json.Number:
		v.checkNumber(path, x, s)
	case string:
		n := len([]rune(x))
		if s.MinLength != nil && n < *s.MinLength {
			v.add(path, "%s must be at least %d characters long, got %d", argName(path), *s.MinLength, n)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			v.add(path, "%s must be at most %d characters long, got %d", argName(path), *s.MaxLength, n)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			v.add(path, "%s must have at least %d items, got %d", argName(path), *s.MinItems, len(x))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			v.add(path, "%s must have at most %d items, got %d", argName(path), *s.MaxItems, len(x))
		}
		for i, item := range x {
			v.check(path+"["+strconv.Itoa(i)+"]", item, s.Items)
		}
	case map[string]any:
		v.checkObject(path, x, s)
	}
}

// checkType reports whether val has one of the types s allows, adding an
// issue when it has not.
func (v *validator) checkType(path string, val any, s *jsonschema.Schema) bool {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		return true
	}
	got := jsonTypeOf(val)
	if slices.Contains(types, got) || (got == "integer" && slices.Contains(types, "number")) {
		return true
	}
	if got == "number" && slices.Contains(types, "integer") {
		n := val.(json.Number)
		if isIntegerLiteral(string(n)) {
			v.add(path, "%s is out of range: it must be a 64-bit integer", argName(path))
			return false
		}
		v.add(path, "%s must be %s, got a number with a fraction or an exponent", argName(path), describeTypes(types))
		return false
	}
	v.add(path, "%s must be %s, got %s", argName(path), describeTypes(types), describe(val))
	return false
}

func (v *validator) checkNumber(path string, n json.Number, s *jsonschema.Schema) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		v.add(path, "%s is not a usable number", argName(path))
		return
	}
	cmp := func(f float64) int { return r.Cmp(new(big.Rat).SetFloat64(f)) }
	switch {
	case s.Minimum != nil && cmp(*s.Minimum) < 0:
		v.add(path, "%s must be >= %s, got a smaller number", argName(path), formatFloat(*s.Minimum))
	case s.Maximum != nil && cmp(*s.Maximum) > 0:
		v.add(path, "%s must be <= %s, got a larger number", argName(path), formatFloat(*s.Maximum))
	case s.ExclusiveMinimum != nil && cmp(*s.ExclusiveMinimum) <= 0:
		v.add(path, "%s must be > %s", argName(path), formatFloat(*s.ExclusiveMinimum))
	case s.ExclusiveMaximum != nil && cmp(*s.ExclusiveMaximum) >= 0:
		v.add(path, "%s must be < %s", argName(path), formatFloat(*s.ExclusiveMaximum))
	}
}

// checkObject reports unknown keys first (they usually explain a missing
// required one), then missing required keys, then the values in schema
// order.
func (v *validator) checkObject(path string, obj map[string]any, s *jsonschema.Schema) {
	known := propertyNames(s)
	keys := sortedKeys(obj)
	if isFalseSchema(s.AdditionalProperties) {
		for _, k := range keys {
			if _, ok := s.Properties[k]; ok {
				continue
			}
			kp := joinPath(path, k)
			switch best := suggest(k, known); {
			case best != "":
				v.add(kp, "unknown argument %q (did you mean %q?)", kp, joinPath(path, best))
			case len(known) == 0 && path == "":
				v.add(kp, "unknown argument %q (this tool takes no arguments)", kp)
			case len(known) == 0:
				v.add(kp, "unknown argument %q (%q takes no keys)", kp, path)
			default:
				v.add(kp, "unknown argument %q (expected one of %s)", kp, quoteList(known, path))
			}
		}
	}
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			v.add(joinPath(path, r), "missing required argument %q", joinPath(path, r))
		}
	}
	for _, k := range known {
		if val, ok := obj[k]; ok {
			v.check(joinPath(path, k), val, s.Properties[k])
		}
	}
	if s.AdditionalProperties != nil && !isFalseSchema(s.AdditionalProperties) {
		for _, k := range keys {
			if _, ok := s.Properties[k]; !ok {
				v.check(joinPath(path, k), obj[k], s.AdditionalProperties)
			}
		}
	}
}

// applyDefaults fills the defaults of s into the missing properties of val,
// recursing into present objects and arrays, and into missing non-nullable
// objects whose properties have defaults. val must already be valid.
func applyDefaults(val any, s *jsonschema.Schema) any {
	if s == nil {
		return val
	}
	switch x := val.(type) {
	case map[string]any:
		for _, k := range propertyNames(s) {
			ps := s.Properties[k]
			cur, ok := x[k]
			switch {
			case ok:
				x[k] = applyDefaults(cur, ps)
			case ps.Default != nil:
				var d any
				if err := decodeJSON(ps.Default, &d); err == nil {
					x[k] = applyDefaults(d, ps)
				}
			case ps.Type == "object" && hasNestedDefaults(ps):
				x[k] = applyDefaults(map[string]any{}, ps)
			}
		}
	case []any:
		for i := range x {
			x[i] = applyDefaults(x[i], s.Items)
		}
	}
	return val
}

func hasNestedDefaults(s *jsonschema.Schema) bool {
	for _, ps := range s.Properties {
		if ps.Default != nil || (ps.Type == "object" && hasNestedDefaults(ps)) {
			return true
		}
	}
	return false
}

// prepare is prepareArgs for e's schema, with the answer for {} (and for
// empty or null arguments) computed once at registration.
func (e *entry) prepare(args json.RawMessage) (json.RawMessage, []Issue) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "{}" || string(t) == "null" {
		if e.emptyIssues != nil {
			return nil, slices.Clone(e.emptyIssues)
		}
		return e.emptyArgs, nil
	}
	return prepareArgs(args, e.schema)
}

// prepareArgs parses, validates and completes (defaults) a call's arguments.
// It returns the completed arguments object as JSON, or the issues.
func prepareArgs(args json.RawMessage, s *jsonschema.Schema) (json.RawMessage, []Issue) {
	args = normalizeArgs(args)
	var val any
	if err := decodeJSON(args, &val); err != nil {
		return nil, []Issue{issue("", "arguments are not valid JSON: "+err.Error())}
	}
	if _, ok := val.(map[string]any); !ok {
		return nil, []Issue{issue("", "arguments must be a JSON object, got "+describe(val))}
	}
	var v validator
	v.check("", val, s)
	if len(v.issues) > 0 {
		return nil, v.issues
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(applyDefaults(val, s)); err != nil {
		return nil, []Issue{issue("", "arguments cannot be re-encoded: "+err.Error())}
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// decodeStrict decodes validated arguments into the tool's input value,
// refusing unknown fields; a failure is reported as an issue.
func decodeStrict(args json.RawMessage, dst any) []Issue {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return []Issue{issue(te.Field, fmt.Sprintf("%s must be %s, got %s",
			argName(te.Field), describeGoType(te.Type.Kind().String()), describeJSONKind(te.Value)))}
	}
	return []Issue{issue("", "invalid arguments: "+err.Error())}
}

// normalizeArgs turns missing, blank and null arguments into {}.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}

// decodeJSON decodes exactly one JSON value with json.Number numbers.
func decodeJSON(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// propertyNames returns the property names of s in declaration order.
func propertyNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for _, p := range s.PropertyOrder {
		if _, ok := s.Properties[p]; ok && !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	var rest []string
	for p := range s.Properties {
		if !slices.Contains(names, p) {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func argName(path string) string {
	if path == "" {
		return "arguments"
	}
	return fmt.Sprintf("argument %q", path)
}

func jsonTypeOf(val any) string {
	switch x := val.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isIntegerLiteral(string(x)) {
			if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return "integer"
			}
			if _, err := strconv.ParseUint(string(x), 10, 64); err == nil {
				return "integer"
			}
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", val)
}

// isIntegerLiteral reports whether a JSON number is written as an integer
// (no fraction, no exponent).
func isIntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var typeNames = map[string]string{
	"null": "null", "boolean": "a boolean", "string": "a string", "integer": "an integer",
	"number": "a number", "array": "an array", "object": "an object",
}

// describeTypes lists the allowed types, null last: "an array or null".
func describeTypes(types []string) string {
	var parts []string
	null := false
	for _, t := range types {
		if t == "null" {
			null = true
			continue
		}
		parts = append(parts, typeNames[t])
	}
	if null {
		parts = append(parts, "null")
	}
	return strings.Join(parts, " or ")
}

func describeGoType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return kind
}

// describe names a JSON value for a message by its kind, never by its
// value, which may be a secret: "a string", "a number", "an array", "an
// object"; booleans and null, which hold nothing, as themselves.
func describe(val any) string {
	switch x := val.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value of another kind"
}

// describeOther is describe for a value of the expected kind but another
// value: "a different string".
func describeOther(val any) string {
	switch val.(type) {
	case nil, bool:
		return describe(val)
	}
	return "a different " + strings.TrimPrefix(strings.TrimPrefix(describe(val), "an "), "a ")
}

// describeJSONKind names the kind of JSON value that encoding/json reports
// in an UnmarshalTypeError ("string", "number", "number 1e999", …), without
// the value it may append.
func describeJSONKind(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		if value != kind {
			return "a number out of its range"
		}
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return "a value of another kind"
}

func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func listValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = literal(v)
	}
	return strings.Join(parts, ", ")
}

func quoteList(names []string, path string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strconv.Quote(joinPath(path, n))
	}
	return strings.Join(parts, ", ")
}

// jsonEqual compares a schema value (Go scalars from a tag or a schema) with
// an instance value (json.Number numbers).
func jsonEqual(a, b any) bool {
	ra, aNum := toRat(a)
	rb, bNum := toRat(b)
	if aNum || bNum {
		return aNum && bNum && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	// Containers: compare their JSON encodings after a common decoding.
	return literal(normalizeJSON(a)) == literal(normalizeJSON(b))
}

func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if decodeJSON(b, &out) != nil {
		return v
	}
	return out
}

func toRat(v any) (*big.Rat, bool) {
	r := new(big.Rat)
	switch x := v.(type) {
	case json.Number:
		if _, ok := r.SetString(string(x)); ok {
			return r, true
		}
		return nil, false
	case int:
		return r.SetInt64(int64(x)), true
	case int64:
		return r.SetInt64(x), true
	case uint64:
		return r.SetUint64(x), true
	case float64:
		return r.SetFloat64(x), true
	}
	return nil, false
}
