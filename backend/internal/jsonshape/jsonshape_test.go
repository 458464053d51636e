package jsonshape

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	N int `json:"n"`
}

type Embedded struct {
	A string `json:"a"`
	B string `json:"b"`
}

type PtrEmbedded struct {
	P string `json:"p"`
}

type Shadow struct {
	A int `json:"a"`
}

type tagged struct {
	X string `json:"x"`
}

type untaggedX struct {
	X string
}

type tie struct {
	tagged    // x, tagged
	untaggedX // X: another key (names are case-sensitive)
}

type node struct {
	Name     string  `json:"name"`
	Children []*node `json:"children"`
}

type selfMarshal struct{ v int }

func (s selfMarshal) MarshalJSON() ([]byte, error) { return []byte(`[1]`), nil }

type ptrMarshal struct{ v int }

func (s *ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`[1]`), nil }

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte(k), nil }

type everything struct {
	Bool         bool                `json:"bool"`
	Int          int64               `json:"int"`
	Uint8        uint8               `json:"uint8"`
	Float        float32             `json:"float"`
	Str          string              `json:"str"`
	Quoted       int                 `json:"quoted,string"`
	Ptr          *inner              `json:"ptr"`
	PtrOmit      *inner              `json:"ptrOmit,omitempty"`
	Slice        []inner             `json:"slice"`
	SliceOm      []inner             `json:"sliceOm,omitempty"`
	Array        [2]int              `json:"array"`
	Bytes        []byte              `json:"bytes"`
	Map          map[string]int      `json:"map"`
	IntMap       map[int]bool        `json:"intMap,omitzero"`
	TextMap      map[textKey]string  `json:"textMap"`
	Time         time.Time           `json:"time"`
	TimePtr      *time.Time          `json:"timePtr"`
	Raw          json.RawMessage     `json:"raw"`
	Any          any                 `json:"any"`
	Number       json.Number         `json:"number"`
	Self         selfMarshal         `json:"self"`
	PtrSelf      ptrMarshal          `json:"ptrSelf"`
	Addr         netip.Addr          `json:"addr"`
	Anon         struct{ Z bool }    `json:"anon"`
	Nested       map[string][]*inner `json:"nested"`
	Skipped      string              `json:"-"`
	Dash         string              `json:"-,"`
	NoTag        string              //
	Private      string              `json:"private"`
	Embedded                         // promoted: a, b
	*PtrEmbedded                     // promoted, optional: p
	Named        Embedded            `json:"named"`
	private2     string
}

// describe renders a shape compactly, for the table below.
func describe(s *Shape) string {
	var b strings.Builder
	var walk func(s *Shape, depth int)
	walk = func(s *Shape, depth int) {
		b.WriteString(s.Kind.String())
		if s.Format != "" {
			b.WriteString("(" + s.Format + ")")
		}
		if s.Nullable {
			b.WriteString("?")
		}
		switch s.Kind {
		case Array, Map:
			b.WriteString("<")
			walk(s.Elem, depth)
			b.WriteString(">")
		case Object:
			if depth > 1 {
				b.WriteString("{…}")
				return
			}
			b.WriteString("{")
			for i, f := range s.Struct.Fields {
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString(f.Name)
				if f.Optional {
					b.WriteString("?")
				}
				b.WriteString(":")
				walk(f.Shape, depth+1)
			}
			b.WriteString("}")
		}
	}
	walk(s, 0)
	return b.String()
}

// TestOf: each kind of Go type has the shape encoding/json gives it.
func TestOf(t *testing.T) {
	sh, err := Of(reflect.TypeFor[everything]())
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	var order []string
	for _, f := range sh.Struct.Fields {
		s := describe(f.Shape)
		if f.Optional {
			s = "optional " + s
		}
		fields[f.Name] = s
		order = append(order, f.Name)
	}
	tests := []struct{ key, want string }{
		{"bool", "boolean"},
		{"int", "integer"},
		{"uint8", "integer"},
		{"float", "number"},
		{"str", "string"},
		{"quoted", "string"},
		{"ptr", "object?{n:integer}"},
		{"ptrOmit", "optional object{n:integer}"}, // a nil pointer is left out
		{"slice", "array?<object{n:integer}>"},
		{"sliceOm", "optional array<object{n:integer}>"},
		{"array", "array<integer>"},
		{"bytes", "string(base64)?"},
		{"map", "map?<integer>"},
		{"intMap", "optional map<boolean>"},
		{"textMap", "map?<string>"},
		{"time", "string(date-time)"},
		{"timePtr", "string(date-time)?"},
		{"raw", "any?"},
		{"any", "any?"},
		{"number", "number"},
		{"self", "any?"},
		{"ptrSelf", "any?"},
		{"addr", "string"}, // a text marshaler
		{"anon", "object{Z:boolean}"},
		{"nested", "map?<array?<object?{n:integer}>>"},
		{"-", "string"},
		{"NoTag", "string"},
		{"private", "string"},
		{"a", "string"},
		{"b", "string"},
		{"p", "optional string"},
		{"named", "object{a:string b:string}"},
	}
	for _, tt := range tests {
		if got, ok := fields[tt.key]; !ok {
			t.Errorf("key %q missing (keys: %v)", tt.key, order)
		} else if got != tt.want {
			t.Errorf("key %q = %s, want %s", tt.key, got, tt.want)
		}
	}
	for _, gone := range []string{"Skipped", "private2", "Embedded", "PtrEmbedded"} {
		if _, ok := fields[gone]; ok {
			t.Errorf("key %q present, want it left out", gone)
		}
	}
	if len(fields) != len(tests) {
		t.Errorf("keys %v, want the %d of the table", order, len(tests))
	}
}

// TestFieldRules: promotion, dominance and conflicts as encoding/json has
// them, checked against encoding/json itself.
func TestFieldRules(t *testing.T) {
	// Built with reflect.StructOf: go vet rightly flags such repeated
	// keys in a struct literal.
	embed := func(v any) reflect.StructField {
		t := reflect.TypeOf(v)
		return reflect.StructField{Name: t.Name(), Type: t, Anonymous: true}
	}
	field := func(name string, v any, tag string) reflect.StructField {
		return reflect.StructField{Name: name, Type: reflect.TypeOf(v), Tag: reflect.StructTag(tag)}
	}
	withShadow := reflect.StructOf([]reflect.StructField{embed(Embedded{}), field("A", 0, `json:"a"`)}) // depth 0 beats Embedded.A
	twoConflicting := reflect.StructOf([]reflect.StructField{embed(Embedded{}), embed(Shadow{})})       // a at depth 1 twice: dropped
	type tagBeatsUntagged struct {
		tagged
		Other struct {
			X string
		}
	}
	tests := []struct {
		name  string
		value any
	}{
		{"shadow", reflect.New(withShadow).Elem().Interface()},
		{"conflict drops both", reflect.New(twoConflicting).Elem().Interface()},
		{"tie", tie{}},
		{"tag beats", tagBeatsUntagged{}},
		{"everything", everything{PtrEmbedded: &PtrEmbedded{}}},
		{"everything, nil embedded pointer", everything{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, err := Of(reflect.TypeOf(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(tt.value)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if err := conforms(sh, v, "$", true); err != nil {
				t.Errorf("encoding/json wrote %s; %v", raw, err)
			}
		})
	}
}

// conforms checks a decoded JSON value against a shape: every required
// key is there, every key the shape lists has its kind, and (exact) no key
// is there that the shape does not list.
func conforms(s *Shape, v any, path string, exact bool) error {
	if v == nil {
		if s.Nullable || s.Kind == Any {
			return nil
		}
		return fmt.Errorf("%s: null, want %s", path, s.Kind)
	}
	switch s.Kind {
	case Any:
		return nil
	case Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %T, want a boolean", path, v)
		}
	case Integer, Number:
		if _, ok := v.(float64); !ok {
			return fmt.Errorf("%s: %T, want a number", path, v)
		}
	case String:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: %T, want a string", path, v)
		}
	case Array:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T, want an array", path, v)
		}
		for i, e := range a {
			if err := conforms(s.Elem, e, fmt.Sprintf("%s[%d]", path, i), exact); err != nil {
				return err
			}
		}
	case Map, Object:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: %T, want an object", path, v)
		}
		if s.Kind == Map {
			for k, e := range m {
				if err := conforms(s.Elem, e, path+"."+k, exact); err != nil {
					return err
				}
			}
			return nil
		}
		known := map[string]bool{}
		for _, f := range s.Struct.Fields {
			known[f.Name] = true
			e, ok := m[f.Name]
			if !ok {
				if f.Optional {
					continue
				}
				return fmt.Errorf("%s: key %q missing", path, f.Name)
			}
			if err := conforms(f.Shape, e, path+"."+f.Name, exact); err != nil {
				return err
			}
		}
		for k := range m {
			if exact && !known[k] {
				return fmt.Errorf("%s: key %q not in the shape", path, k)
			}
		}
	}
	return nil
}

// TestRecursive: a recursive type is one shared Struct, not an error.
func TestRecursive(t *testing.T) {
	sh, err := Of(reflect.TypeFor[node]())
	if err != nil {
		t.Fatal(err)
	}
	children := sh.Struct.Fields[1].Shape
	if children.Kind != Array || children.Elem.Struct != sh.Struct || !children.Elem.Nullable {
		t.Errorf("children = %s, want a nullable array of the same struct", describe(children))
	}
	v := node{Name: "a", Children: []*node{{Name: "b"}, nil}}
	raw, _ := json.Marshal(v)
	var d any
	_ = json.Unmarshal(raw, &d)
	if err := conforms(sh, d, "$", true); err != nil {
		t.Errorf("%s: %v", raw, err)
	}
}

// TestUnsupported: types encoding/json cannot write fail with an
// UnsupportedError naming where.
func TestUnsupported(t *testing.T) {
	type withChan struct {
		In struct {
			C chan int `json:"c"`
		} `json:"in"`
	}
	tests := []struct {
		typ      reflect.Type
		wantPath string
	}{
		{reflect.TypeFor[func()](), ""},
		{reflect.TypeFor[complex128](), ""},
		{reflect.TypeFor[map[inner]int](), ""},
		{reflect.TypeFor[[]map[float64]int](), "[]"},
		{reflect.TypeFor[withChan](), "in.c"},
	}
	for _, tt := range tests {
		_, err := Of(tt.typ)
		var ue *UnsupportedError
		if !IsUnsupported(err) || !errors.As(err, &ue) || ue.Path != tt.wantPath {
			t.Errorf("Of(%s) = %v, want an UnsupportedError at %q", tt.typ, err, tt.wantPath)
		}
	}
	// A func field tagged "-" is no problem.
	type skipped struct {
		F func() `json:"-"`
	}
	if _, err := Of(reflect.TypeFor[skipped]()); err != nil {
		t.Errorf("Of(skipped) = %v", err)
	}
}
