// Package jsonshape describes the JSON that encoding/json writes for a Go
// type: which values are objects, arrays, strings, numbers or booleans,
// which may be null, which keys an object always has and which it may leave
// out. The registry renders a tool's output schema from it and the frontend
// type generator (backend/cmd/gentypes) renders TypeScript from it, so both
// follow encoding/json's rules in one place:
//
//   - struct fields by their JSON names, promoted from embedded structs by
//     encoding/json's depth and tag rules; a field tagged "-" is left out;
//     omitempty and omitzero make a key optional, and so does reaching it
//     through an embedded pointer (a nil one leaves its fields out);
//   - pointers, slices, maps and interfaces may be null, except in a field
//     with omitempty or omitzero, which leaves a nil one out;
//   - []byte is a base64 string; time.Time an RFC 3339 string; a field with
//     the ",string" option a string;
//   - a type with its own MarshalJSON (json.RawMessage too) is any value, a
//     type with only MarshalText a string;
//   - channels, functions, complex numbers and maps whose keys are neither
//     strings, integers nor text marshalers cannot be written: [Of] fails.
//
// A named struct type is described once: every use of it shares one
// [Struct], so a recursive type gives a graph with a cycle, not an error.
package jsonshape

import (
	"cmp"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Kind is the JSON kind of a [Shape].
type Kind uint8

// The kinds of a [Shape].
const (
	// Any is any JSON value (an interface, json.RawMessage, a type with its
	// own MarshalJSON).
	Any Kind = iota
	Bool
	// Integer is a number without a fraction (Go's integer types).
	Integer
	Number
	String
	// Array has items of shape Elem.
	Array
	// Object is a struct, with the keys listed in Struct.
	Object
	// Map is an object with any keys, whose values have shape Elem.
	Map
)

var kindNames = [...]string{"any", "boolean", "integer", "number", "string", "array", "object", "map"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Formats of a [String] shape.
const (
	// FormatDateTime is an RFC 3339 time (time.Time).
	FormatDateTime = "date-time"
	// FormatBase64 is base64-encoded bytes ([]byte).
	FormatBase64 = "base64"
)

// Shape is the JSON form of one use of a Go type.
type Shape struct {
	Kind Kind
	// Nullable is true when the value may be null: a pointer, slice, map or
	// interface.
	Nullable bool
	// Type is the Go type described, pointers removed.
	Type reflect.Type
	// Elem is the shape of an Array's items or of a Map's values.
	Elem *Shape
	// Struct lists an Object's keys; it is shared by every use of a struct
	// type.
	Struct *Struct
	// Format refines a String: FormatDateTime or FormatBase64, or "".
	Format string
}

// Struct is the JSON object of a struct type.
type Struct struct {
	// Type is the struct type.
	Type reflect.Type
	// Fields are the object's keys in the order encoding/json writes them.
	Fields []Field
}

// Field is one key of a [Struct].
type Field struct {
	// Name is the JSON key.
	Name string
	// Optional is true when the key may be left out: omitempty, omitzero,
	// or a field promoted through an embedded pointer.
	Optional bool
	Shape    *Shape
	// Go is the struct field the key comes from (its tags, its doc).
	Go reflect.StructField
}

// UnsupportedError says that a type cannot be written as JSON.
type UnsupportedError struct {
	// Path names where the type was met ("" for the root, else field names
	// joined by dots, "[]" for items and "*" for map values).
	Path string
	Type reflect.Type
}

func (e *UnsupportedError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("jsonshape: type %s cannot be written as JSON", e.Type)
	}
	return fmt.Sprintf("jsonshape: %s: type %s cannot be written as JSON", e.Path, e.Type)
}

// IsUnsupported reports whether err is an [UnsupportedError].
func IsUnsupported(err error) bool {
	var e *UnsupportedError
	return errors.As(err, &e)
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	numberType        = reflect.TypeFor[json.Number]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// Of returns the shape of the JSON that encoding/json writes for a value of
// type t. It fails with an [UnsupportedError] for a type that encoding/json
// cannot write.
func Of(t reflect.Type) (*Shape, error) {
	b := builder{structs: map[reflect.Type]*Struct{}}
	return b.shape(t, "")
}

type builder struct {
	structs map[reflect.Type]*Struct
}

func (b *builder) shape(t reflect.Type, path string) (*Shape, error) {
	if t == nil {
		return &Shape{Kind: Any, Nullable: true}, nil
	}
	nullable := false
	for t.Kind() == reflect.Pointer {
		nullable = true
		t = t.Elem()
	}
	s := &Shape{Type: t, Nullable: nullable}
	switch {
	case t == timeType:
		s.Kind, s.Format = String, FormatDateTime
		return s, nil
	case t == numberType:
		s.Kind = Number
		return s, nil
	case t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType):
		// json.RawMessage, and any type that writes itself. A marshaler
		// with a pointer receiver is used only on addressable values, so
		// the form is not known either.
		s.Kind, s.Nullable = Any, true
		return s, nil
	case t.Implements(textMarshalerType):
		s.Kind = String
		return s, nil
	case reflect.PointerTo(t).Implements(textMarshalerType):
		s.Kind, s.Nullable = Any, true
		return s, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		s.Kind = Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.Kind = Integer
	case reflect.Float32, reflect.Float64:
		s.Kind = Number
	case reflect.String:
		s.Kind = String
	case reflect.Interface:
		s.Kind, s.Nullable = Any, true
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice {
			s.Nullable = true
			if t.Elem().Kind() == reflect.Uint8 && !byteMarshals(t.Elem()) {
				s.Kind, s.Format = String, FormatBase64
				return s, nil
			}
		}
		elem, err := b.shape(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		s.Kind, s.Elem = Array, elem
	case reflect.Map:
		if !mapKeyOK(t.Key()) {
			return nil, &UnsupportedError{Path: path, Type: t}
		}
		elem, err := b.shape(t.Elem(), joinPath(path, "*"))
		if err != nil {
			return nil, err
		}
		s.Kind, s.Nullable, s.Elem = Map, true, elem
	case reflect.Struct:
		st, err := b.structOf(t, path)
		if err != nil {
			return nil, err
		}
		s.Kind, s.Struct = Object, st
	default:
		return nil, &UnsupportedError{Path: path, Type: t}
	}
	return s, nil
}

// byteMarshals reports whether the byte type t writes itself, in which case
// encoding/json writes a []t as an array, not as base64.
func byteMarshals(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || pt.Implements(textMarshalerType)
}

// mapKeyOK reports whether encoding/json can write maps with keys of type k.
func mapKeyOK(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return k.Implements(textMarshalerType)
}

// structOf returns the shared description of struct type t, building it on
// first use; a recursive use gets the Struct being built.
func (b *builder) structOf(t reflect.Type, path string) (*Struct, error) {
	if st, ok := b.structs[t]; ok {
		return st, nil
	}
	st := &Struct{Type: t}
	b.structs[t] = st
	for _, f := range jsonFields(t) {
		fpath := joinPath(path, f.name)
		fs, err := b.fieldShape(f, fpath)
		if err != nil {
			delete(b.structs, t)
			return nil, err
		}
		st.Fields = append(st.Fields, Field{Name: f.name, Optional: f.optional, Shape: fs, Go: f.sf})
	}
	return st, nil
}

// fieldShape is the shape of a field's value. A field with omitempty or
// omitzero is left out when it is a nil pointer, slice or map, so when it
// is there it is not null (unless what a pointer points to may be).
func (b *builder) fieldShape(f jsonField, path string) (*Shape, error) {
	t := f.sf.Type
	if f.quoted {
		return &Shape{Kind: String, Type: t, Nullable: t.Kind() == reflect.Pointer && !f.omits}, nil
	}
	if f.omits && t.Kind() == reflect.Pointer {
		return b.shape(t.Elem(), path)
	}
	s, err := b.shape(t, path)
	if err != nil {
		return nil, err
	}
	if f.omits && (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) && s.Kind != Any {
		s.Nullable = false
	}
	return s, nil
}

// jsonField is a struct field as encoding/json sees it.
type jsonField struct {
	name     string
	tagged   bool  // the name comes from the tag
	index    []int // the path of field indexes from the outer struct
	optional bool
	omits    bool // omitempty or omitzero: a nil value is left out
	quoted   bool // the ",string" option applies
	sf       reflect.StructField
}

// jsonFields returns the fields encoding/json writes for struct type t, in
// its order: a breadth-first walk of the embedded structs, where of the
// fields with one name the shallowest wins, a tagged one winning a tie,
// and a tie left undecided drops them all (encoding/json's typeFields).
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ    reflect.Type
		index  []int
		viaPtr bool // reached through an embedded pointer
	}
	var fields []jsonField
	next := []level{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clone(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					omits := hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
					f := jsonField{
						name:     cmp.Or(name, sf.Name),
						tagged:   name != "",
						index:    index,
						optional: l.viaPtr || omits,
						omits:    omits,
						quoted:   hasOption(opts, "string") && quotable(ft),
						sf:       sf,
					}
					fields = append(fields, f)
					if count[l.typ] > 1 {
						// Two embeddings of one type at one depth: their
						// fields annihilate each other below.
						fields = append(fields, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index, viaPtr: l.viaPtr || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(len(a.index), len(b.index)),
			-compareBool(a.tagged, b.tagged), slices.Compare(a.index, b.index))
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		if len(group) == 1 || len(group[0].index) < len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// quotable reports whether the ",string" option applies to a field of type
// t (encoding/json ignores it on other types).
func quotable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTagName reports whether encoding/json accepts name as a key from a
// tag.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
