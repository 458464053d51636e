package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// This file is the argument parser: argv → [Args] (a syntax-only pass that
// knows nothing about commands), then [Args] → [Params] (the tool arguments,
// still uncoerced), then [Params.Resolve] coerces the words, using the tool's
// input schema when the runtime provided one.

// Args is a parsed command line.
type Args struct {
	// Positionals are the bare words in order; the first is the command.
	Positionals []string
	// Flags are the named flags in order of first appearance.
	Flags []Flag
	// Passthrough holds every word after a bare "--".
	Passthrough []string
}

// Flag is one named flag with every value it was given, in order.
type Flag struct {
	Name   string
	Values []FlagValue
	// List marks --args, whose value is always an array of raw strings.
	List bool
}

// FlagValue is one occurrence of a flag.
type FlagValue struct {
	Text string
	// Bare is set when the flag had no value (--flag): it means true.
	Bare bool
}

// globalBooleans are flags that never take the next word as their value,
// so "meith --json tools" keeps "tools" as the command.
var globalBooleans = map[string]bool{
	"json": true, "quiet": true, "verbose": true, "v": true,
	"version": true, "V": true, "help": true, "h": true, "stdin": true, "yes": true, "write": true,
	"color": true, // --color=when only: "--color log" keeps "log" as the command
}

var negativeNumber = regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`)

// isValueWord reports whether w can be the value of a preceding --flag: any
// word not starting with "-", a lone "-", or a negative number.
func isValueWord(w string) bool {
	return !strings.HasPrefix(w, "-") || w == "-" || negativeNumber.MatchString(w)
}

// Parse splits argv into positionals, flags and passthrough words:
//
//   - "--flag value", "--flag=value", and a boolean "--flag" (when the next
//     word is another flag, is missing, or the flag is in booleans);
//   - single-dash short flags "-v" (boolean) and "-k=value";
//   - repeated flags keep every value, in order;
//   - "--args" captures every following word, dash-prefixed ones included;
//   - everything after a bare "--" is passthrough;
//   - a negative number ("-2", "-0.5") is a value or a positional, never a flag.
func Parse(argv []string, booleans map[string]bool) *Args {
	a := &Args{}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case w == "--":
			a.Passthrough = append([]string{}, argv[i+1:]...)
			return a
		case strings.HasPrefix(w, "--") && len(w) > 2:
			body := w[2:]
			if name, val, ok := strings.Cut(body, "="); ok && name != "" {
				a.add(name, FlagValue{Text: val})
				continue
			}
			if body == "args" {
				f := a.flag("args")
				f.List = true
				for _, rest := range argv[i+1:] {
					f.Values = append(f.Values, FlagValue{Text: rest})
				}
				return a
			}
			if !booleans[body] && i+1 < len(argv) && isValueWord(argv[i+1]) {
				a.add(body, FlagValue{Text: argv[i+1]})
				i++
				continue
			}
			a.add(body, FlagValue{Bare: true})
		case strings.HasPrefix(w, "-") && len(w) > 1 && !negativeNumber.MatchString(w):
			if name, val, ok := strings.Cut(w[1:], "="); ok && name != "" {
				a.add(name, FlagValue{Text: val})
				continue
			}
			a.add(w[1:], FlagValue{Bare: true})
		default:
			a.Positionals = append(a.Positionals, w)
		}
	}
	return a
}

func (a *Args) flag(name string) *Flag {
	for i := range a.Flags {
		if a.Flags[i].Name == name {
			return &a.Flags[i]
		}
	}
	a.Flags = append(a.Flags, Flag{Name: name})
	return &a.Flags[len(a.Flags)-1]
}

func (a *Args) add(name string, v FlagValue) {
	f := a.flag(name)
	f.Values = append(f.Values, v)
}

// Lookup returns the flag called name, or nil.
func (a *Args) Lookup(name string) *Flag {
	for i := range a.Flags {
		if a.Flags[i].Name == name {
			return &a.Flags[i]
		}
	}
	return nil
}

// Bool reports whether any of names is set and its last value is not "false"
// (a bare flag is true).
func (a *Args) Bool(names ...string) bool {
	for _, n := range names {
		if f := a.Lookup(n); f != nil && len(f.Values) > 0 {
			last := f.Values[len(f.Values)-1]
			if last.Bare || !strings.EqualFold(last.Text, "false") {
				return true
			}
		}
	}
	return false
}

// Value returns the last value of the first of names that is set. present
// is true when the flag appeared; bare is true when it had no value.
func (a *Args) Value(names ...string) (value string, present, bare bool) {
	for _, n := range names {
		if f := a.Lookup(n); f != nil && len(f.Values) > 0 {
			last := f.Values[len(f.Values)-1]
			return last.Text, true, last.Bare
		}
	}
	return "", false, false
}

// word is a command-line word whose JSON type is decided late: by the tool's
// input schema when there is one, else by [Coerce].
type word string

// Params are the arguments of a tool call as built from the command line.
// Values are word (to be coerced), string (kept as is), bool,
// json.RawMessage (from --stdin, --arg-json and --<key>-json) or []any of
// those.
type Params map[string]any

// BuildOptions tells [BuildParams] how to map a parsed command line.
type BuildOptions struct {
	// Slots names the positional parameters, in order. Extra positionals
	// are an error, unless the last slot is named "name...": it then takes
	// all the remaining positionals as an array under "name".
	Slots []string
	// Reserved reports the flags the CLI consumes itself; they are never
	// forwarded.
	Reserved func(name string) bool
	// ArrayKeys are parameters that are always arrays (a single value is
	// wrapped).
	ArrayKeys []string
	// Base is the starting object (from --stdin); everything else overrides it.
	Base map[string]json.RawMessage
	// Command names the command in error messages.
	Command string
}

// BuildParams builds the tool arguments from a, in increasing precedence:
// Base (--stdin), --arg-json objects, positionals, then flags (a
// --<key>-json beats a plain --<key>). Words after "--" become the "args"
// array (appended to --args when both are given).
func BuildParams(a *Args, positionals []string, o BuildOptions) (Params, error) {
	p := Params{}
	for k, v := range o.Base {
		p[k] = v
	}
	reserved := func(n string) bool { return o.Reserved != nil && o.Reserved(n) }
	// 1. --arg-json objects, merged in order.
	if f := a.Lookup("arg-json"); f != nil && !reserved("arg-json") {
		for _, v := range f.Values {
			if v.Bare {
				return nil, fmt.Errorf("--arg-json needs a JSON object value")
			}
			obj, err := decodeObject([]byte(v.Text))
			if err != nil {
				return nil, fmt.Errorf("--arg-json must be a JSON object: %v", err)
			}
			for k, raw := range obj {
				p[k] = raw
			}
		}
	}
	// 2. Positionals onto their slots. A last slot named "name..." takes
	// every remaining positional as an array.
	if n := len(o.Slots); n > 0 && strings.HasSuffix(o.Slots[n-1], "...") {
		key := strings.TrimSuffix(o.Slots[n-1], "...")
		if len(positionals) >= n {
			var rest []any
			for _, pos := range positionals[n-1:] {
				rest = append(rest, word(pos))
			}
			p[key] = rest
			positionals = positionals[:n-1]
		}
		for i, pos := range positionals {
			p[o.Slots[i]] = word(pos)
		}
		positionals = nil
	}
	if len(positionals) > len(o.Slots) {
		extra := positionals[len(o.Slots)]
		if len(o.Slots) == 0 {
			return nil, fmt.Errorf("%s takes no positional arguments (got %q); pass parameters as --key value", o.Command, extra)
		}
		return nil, fmt.Errorf("too many arguments for %s (got %q): it takes at most %d (<%s>); pass other parameters as --key value",
			o.Command, extra, len(o.Slots), strings.Join(o.Slots, "> <"))
	}
	for i, pos := range positionals {
		p[o.Slots[i]] = word(pos)
	}
	// 3. Plain flags, then --<key>-json flags.
	var jsonFlags []Flag
	for _, f := range a.Flags {
		if f.Name == "arg-json" || reserved(f.Name) {
			continue
		}
		if key, ok := strings.CutSuffix(f.Name, "-json"); ok && key != "" {
			jsonFlags = append(jsonFlags, f)
			continue
		}
		p[f.Name] = flagValue(f)
	}
	for _, f := range jsonFlags {
		key := strings.TrimSuffix(f.Name, "-json")
		var vals []any
		for _, v := range f.Values {
			if v.Bare {
				return nil, fmt.Errorf("--%s needs a JSON value", f.Name)
			}
			raw := bytes.TrimSpace([]byte(v.Text))
			if err := validJSON(raw); err != nil {
				return nil, fmt.Errorf("Invalid JSON for --%s: %v", f.Name, err)
			}
			vals = append(vals, json.RawMessage(raw))
		}
		if len(vals) == 1 {
			p[key] = vals[0]
		} else {
			p[key] = vals
		}
	}
	// 4. Passthrough words become "args".
	if len(a.Passthrough) > 0 {
		var list []any
		if prev, ok := p["args"].([]any); ok {
			list = prev
		} else if prev, ok := p["args"]; ok {
			list = []any{prev}
		}
		for _, w := range a.Passthrough {
			list = append(list, w)
		}
		p["args"] = list
	}
	// 5. Array-only keys.
	for _, k := range o.ArrayKeys {
		switch v := p[k].(type) {
		case nil, []any:
		case json.RawMessage:
			if len(v) == 0 || v[0] != '[' {
				p[k] = []any{v}
			}
		default:
			p[k] = []any{v}
		}
	}
	return p, nil
}

func flagValue(f Flag) any {
	if f.List {
		list := make([]any, 0, len(f.Values))
		for _, v := range f.Values {
			list = append(list, v.Text)
		}
		return list
	}
	one := func(v FlagValue) any {
		if v.Bare {
			return true
		}
		return word(v.Text)
	}
	if len(f.Values) == 1 {
		return one(f.Values[0])
	}
	list := make([]any, 0, len(f.Values))
	for _, v := range f.Values {
		list = append(list, one(v))
	}
	return list
}

// validJSON checks that b is exactly one JSON value.
func validJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("unexpected data after the JSON value")
	}
	return nil
}

// decodeObject parses b as one JSON object.
func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if err := validJSON(b); err != nil {
		return nil, err
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("got %s", jsonKindOf(b))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func jsonKindOf(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	}
	return "a number"
}

var numberWord = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// Coerce turns a command-line word into a JSON value: "true"/"false" become
// booleans, decimal numbers ("50", "-2", "3.14") become numbers (kept
// exactly, as json.Number), anything else stays a string. Words such as
// "007", "1e3", "0x10" or "" stay strings.
func Coerce(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if numberWord.MatchString(s) {
		return json.Number(s)
	}
	return s
}

// Resolve returns the arguments as plain JSON-ready values. With an input
// schema (a JSON Schema object, may be nil) each word is coerced to a type
// its property accepts: a word stays a string where only a string is
// accepted ("007", "123" for a string field), a single value is wrapped
// for an array property, and a JSON word is parsed for an object or array
// property. Without a schema, or for unknown properties, [Coerce] decides.
func (p Params) Resolve(schema json.RawMessage) map[string]any {
	props := parseSchemaProps(schema)
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = resolveValue(v, props[k])
	}
	return out
}

// JSON marshals the resolved arguments (see [Params.Resolve]).
func (p Params) JSON(schema json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(p.Resolve(schema))
}

func resolveValue(v any, s *propSchema) any {
	switch v := v.(type) {
	case word:
		types := s.types()
		if types["array"] && !types["string"] {
			if r, ok := jsonWord(string(v), "["); ok {
				return r
			}
			var items *propSchema
			if s != nil {
				items = s.Items
			}
			return []any{resolveWord(string(v), items)}
		}
		return resolveWord(string(v), s)
	case []any:
		var items *propSchema
		if s != nil {
			items = s.Items
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = resolveValue(e, items)
		}
		return out
	case bool:
		if s.types()["array"] && !s.types()["boolean"] {
			return []any{v}
		}
		return v
	}
	return v
}

func resolveWord(w string, s *propSchema) any {
	c := Coerce(w)
	types := s.types()
	if len(types) == 0 {
		return c
	}
	switch c := c.(type) {
	case bool:
		if types["boolean"] {
			return c
		}
	case json.Number:
		isInt := !strings.Contains(string(c), ".")
		if types["number"] || (isInt && types["integer"]) {
			return c
		}
	case string:
		if types["string"] {
			return c
		}
		if types["object"] {
			if r, ok := jsonWord(w, "{"); ok {
				return r
			}
		}
		if types["array"] {
			if r, ok := jsonWord(w, "["); ok {
				return r
			}
		}
		return c
	}
	if types["string"] {
		return w
	}
	return c
}

// jsonWord returns w as raw JSON when it is valid JSON starting with open.
func jsonWord(w, open string) (json.RawMessage, bool) {
	t := strings.TrimSpace(w)
	if !strings.HasPrefix(t, open) || validJSON([]byte(t)) != nil {
		return nil, false
	}
	return json.RawMessage(t), true
}
