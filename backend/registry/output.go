package registry

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/meith-dev/meith/backend/internal/jsonshape"
	"github.com/meith-dev/meith/backend/protocol"
)

var (
	toolResultType    = reflect.TypeFor[protocol.ToolResult]()
	toolResultPtrType = reflect.TypeFor[*protocol.ToolResult]()
)

// OutputSchemaFor returns the JSON Schema [Register] infers for the content
// of a tool whose handler returns Out, or nil when Out is not described:
// see [Register]. It fails where Register would panic.
func OutputSchemaFor[Out any]() (json.RawMessage, error) {
	return outputSchema(reflect.TypeFor[Out]())
}

// outputSchema describes the content of a successful call of a tool whose
// handler returns values of type t: the JSON encoding/json writes for
// them (jsonshape), as a 2020-12 JSON Schema. It is nil when the content is
// not described: t is protocol.ToolResult (the handler builds the envelope,
// any content) or a type whose JSON can be anything (an interface,
// json.RawMessage, a type with its own MarshalJSON). A type encoding/json
// cannot write at all is an error.
//
// Objects list their keys (required unless omitempty, omitzero or promoted
// through an embedded pointer) but do not refuse others: the schema says
// what a caller can count on. A recursive struct type is described once,
// under $defs.
func outputSchema(t reflect.Type) (json.RawMessage, error) {
	if t == toolResultType || t == toolResultPtrType {
		return nil, nil
	}
	shape, err := jsonshape.Of(t)
	if err != nil {
		return nil, fmt.Errorf("output type: %w", err)
	}
	if shape.Kind == jsonshape.Any {
		return nil, nil
	}
	sw := schemaWriter{defs: map[*jsonshape.Struct]*def{}}
	s := sw.schema(shape)
	for _, d := range sw.order {
		if d.recursive {
			if s.Defs == nil {
				s.Defs = map[string]*jsonschema.Schema{}
			}
			s.Defs[d.name] = d.schema
		}
	}
	if _, err := s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("resolve output schema: %w", err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("marshal output schema: %w", err)
	}
	return objectSchemas(raw)
}

// def is a struct type's schema while the output schema is written.
type def struct {
	name      string
	schema    *jsonschema.Schema
	done      bool
	recursive bool // met again while being written: it goes to $defs
}

// schemaWriter turns a jsonshape graph into a JSON Schema.
type schemaWriter struct {
	defs  map[*jsonshape.Struct]*def
	order []*def
	names map[string]bool
}

func (w *schemaWriter) schema(sh *jsonshape.Shape) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	switch sh.Kind {
	case jsonshape.Any:
		return s
	case jsonshape.Bool:
		s.Type = "boolean"
	case jsonshape.Integer:
		s.Type = "integer"
	case jsonshape.Number:
		s.Type = "number"
	case jsonshape.String:
		s.Type = "string"
		switch sh.Format {
		case jsonshape.FormatDateTime:
			s.Format = "date-time"
		case jsonshape.FormatBase64:
			s.ContentEncoding = "base64"
		}
	case jsonshape.Array:
		s.Type = "array"
		s.Items = w.schema(sh.Elem)
	case jsonshape.Map:
		s.Type = "object"
		s.AdditionalProperties = w.schema(sh.Elem)
	case jsonshape.Object:
		s = w.object(sh.Struct)
	}
	if sh.Nullable {
		if s.Ref != "" {
			s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, s}}
		} else {
			s = nullable(s)
		}
	}
	return s
}

// nullable returns a copy of s that also allows null.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	if c.Type != "" {
		c.Types = []string{"null", c.Type}
		c.Type = ""
	}
	return &c
}

// object returns the schema of a struct: written in place the first time,
// a $ref when the struct is met again inside itself.
func (w *schemaWriter) object(st *jsonshape.Struct) *jsonschema.Schema {
	d := w.defs[st]
	if d != nil {
		if !d.done {
			d.recursive = true
			return &jsonschema.Schema{Ref: "#/$defs/" + d.name}
		}
		if d.recursive {
			return &jsonschema.Schema{Ref: "#/$defs/" + d.name}
		}
		return d.schema.CloneSchemas()
	}
	d = &def{name: w.defName(st.Type), schema: &jsonschema.Schema{Type: "object"}}
	w.defs[st] = d
	w.order = append(w.order, d)
	for _, f := range st.Fields {
		if d.schema.Properties == nil {
			d.schema.Properties = map[string]*jsonschema.Schema{}
		}
		ps := w.schema(f.Shape)
		if desc, ok := f.Go.Tag.Lookup("jsonschema"); ok && ps.Ref == "" {
			ps.Description = desc
		}
		d.schema.Properties[f.Name] = ps
		d.schema.PropertyOrder = append(d.schema.PropertyOrder, f.Name)
		if !f.Optional {
			d.schema.Required = append(d.schema.Required, f.Name)
		}
	}
	d.done = true
	if d.recursive {
		return &jsonschema.Schema{Ref: "#/$defs/" + d.name}
	}
	return d.schema.CloneSchemas()
}

// defName names a struct type under $defs: its Go name, made unique.
func (w *schemaWriter) defName(t reflect.Type) string {
	if w.names == nil {
		w.names = map[string]bool{}
	}
	base := t.Name()
	if base == "" {
		base = "object"
	}
	name := base
	for n := 2; w.names[name]; n++ {
		name = fmt.Sprintf("%s%d", base, n)
	}
	w.names[name] = true
	return name
}
