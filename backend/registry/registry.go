package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/meith-dev/meith/backend/protocol"
)

// NoArgs is the input type of a tool that takes no arguments; its schema is
// an object without properties, so any argument is refused.
type NoArgs struct{}

// Registry holds the registered tools and runs every call through the
// pipeline described on [Registry.Call]. Create it with [New]; it is safe
// for concurrent use.
type Registry struct {
	opts Options

	mu     sync.RWMutex
	tools  map[string]*entry
	order  []string
	closed atomic.Bool

	flightMu sync.Mutex
	inFlight int
	idle     chan struct{} // made by WaitIdle, closed when inFlight drops to zero
	// calls holds the cancel funcs of the calls that have not resolved,
	// which BeginShutdown cancels (cheaper per call than a child context
	// of a shared shutdown context).
	calls map[*callState]struct{}
}

// callState is what BeginShutdown needs of a call that has not resolved,
// the record its authorizer writes, and the rest of the call's state, in
// one allocation.
type callState struct {
	cancel context.CancelCauseFunc
	alive  keepAlive  // the call's timer, once it runs
	auth   AuthRecord // what the authorizer recorded
	em     emitter    // the call's event stream
	call   Call       // what the handler gets
}

// entry is one registered tool.
type entry struct {
	tool   Tool
	desc   protocol.ToolDescriptor
	schema *jsonschema.Schema
	// bind decodes validated arguments into the tool's input and returns the
	// function that runs the handler on it.
	bind func(args json.RawMessage) (invoke, []Issue)
	// emptyArgs and emptyIssues are what prepareArgs gives for {}, computed
	// once at registration: calls without arguments are common and skip the
	// generic decode, validation and re-encoding. emptyRun, when not nil,
	// is bind(emptyArgs), also made once: the input decoded from emptyArgs
	// holds no pointers, slices or maps, so every call may get a copy.
	emptyArgs   json.RawMessage
	emptyIssues []Issue
	emptyRun    invoke
	// caps is desc.Capabilities with no room to append, shared by every
	// Outcome (read-only).
	caps []protocol.Capability
	// emptyInline is Tool.Inline(emptyArgs), asked once.
	emptyInline bool
	// readOnly is true when every capability of the tool is read-only
	// (Options.Admit is not asked about it).
	readOnly bool
	// sig is the handler's Go input and output type.
	sig Signature
}

// invoke runs a bound handler. It returns the handler's raw output; the
// caller wraps it (in its own goroutine, whose stack is already large).
type invoke func(ctx context.Context, call *Call) (any, error)

// New returns an empty registry configured by opts.
func New(opts Options) *Registry {
	return &Registry{
		opts:  opts,
		tools: map[string]*entry{},
	}
}

var toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Register adds a tool whose handler takes a typed input In and returns a
// typed output Out. It is a function, not a method, because methods cannot
// have type parameters.
//
// Register infers the input JSON Schema from In, which must be a struct type
// (use [NoArgs] for none): properties from the exported fields by their JSON
// names, required for fields without omitempty/omitzero, descriptions from
// `jsonschema:"..."` tags, and every struct object refusing unknown keys
// (additionalProperties: false). These field tags refine it:
//
//	enum:"a,b,c"      allowed values of a string or integer field (or of
//	                  each item of a slice of them)
//	default:"..."     value used when the argument is missing, parsed per the
//	                  field's type (string as is, integer, number, bool, JSON
//	                  for anything else); a field with a default is optional
//	minimum:"0"       inclusive lower bound of a number (or of each item)
//	maximum:"600000"  inclusive upper bound of a number (or of each item)
//	maxLength:"256"   most characters of a string (or of each string item)
//	maxItems:"1000"   most items of a list
//
// At call time the arguments are validated against that schema, completed
// with the defaults and decoded strictly into In before the handler runs.
//
// If Out is [protocol.ToolResult] (or a pointer to one) the handler's
// envelope is returned as is; any other value v becomes {ok: true, content: v}.
//
// Register also infers the output schema, the JSON Schema of the content of
// a successful call, from Out: the JSON encoding/json writes for it (see
// package jsonshape), whose object keys are required unless omitempty or
// omitzero. The descriptor's OutputSchema is left out when the content is
// not described: Out is protocol.ToolResult (the handler builds its own
// envelope), an interface such as any, json.RawMessage, or a type with its
// own MarshalJSON.
//
// Register panics on a bad registration, so mistakes show at start-up: an
// empty, malformed or duplicate name, an empty description, no or invalid
// capabilities, a nil handler, an In that is not a struct, a type the schema
// cannot describe (an Out that encoding/json cannot write, such as a
// channel), or a bad struct tag.
func Register[In, Out any](r *Registry, t Tool, h func(ctx context.Context, call *Call, in In) (Out, error)) {
	if err := checkTool(t); err != nil {
		panic(fmt.Sprintf("registry: register tool %q: %v", t.Name, err))
	}
	if h == nil {
		panic(fmt.Sprintf("registry: register tool %q: nil handler", t.Name))
	}
	schema, err := inferSchema(reflect.TypeFor[In]())
	if err != nil {
		panic(fmt.Sprintf("registry: register tool %q: %v", t.Name, err))
	}
	raw, err := marshalSchema(schema)
	if err != nil {
		panic(fmt.Sprintf("registry: register tool %q: %v", t.Name, err))
	}
	out, err := outputSchema(reflect.TypeFor[Out]())
	if err != nil {
		panic(fmt.Sprintf("registry: register tool %q: %v", t.Name, err))
	}
	e := &entry{
		tool: t,
		desc: protocol.ToolDescriptor{
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  raw,
			OutputSchema: out,
			Capabilities: slices.Clone(t.Capabilities),
		},
		schema: schema,
		sig:    Signature{In: reflect.TypeFor[In](), Out: reflect.TypeFor[Out]()},
		bind: func(args json.RawMessage) (invoke, []Issue) {
			var in In
			if issues := decodeStrict(args, &in); issues != nil {
				return nil, issues
			}
			return func(ctx context.Context, call *Call) (any, error) {
				return h(ctx, call, in)
			}, nil
		},
	}
	e.emptyArgs, e.emptyIssues = prepareArgs(json.RawMessage(`{}`), schema)
	if e.emptyIssues == nil && plainValue(reflect.TypeFor[In]()) {
		e.emptyRun, _ = e.bind(e.emptyArgs)
	}
	if e.emptyIssues == nil && t.Inline != nil {
		e.emptyInline = t.Inline(e.emptyArgs)
	}
	e.caps = slices.Clip(e.desc.Capabilities)
	e.readOnly = t.ArgCapabilities == nil &&
		!slices.ContainsFunc(t.Capabilities, func(c protocol.Capability) bool { return c != protocol.CapReadOnly })
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		panic(fmt.Sprintf("registry: tool already registered: %q", t.Name))
	}
	r.tools[t.Name] = e
	r.order = append(r.order, t.Name)
}

// checkTool checks the static definition of a tool.
func checkTool(t Tool) error {
	switch {
	case t.Name == "":
		return errors.New("empty name")
	case !toolNameRE.MatchString(t.Name):
		return errors.New("name must match ^[a-z][a-z0-9_]*$")
	case strings.TrimSpace(t.Description) == "":
		return errors.New("empty description")
	case len(t.Capabilities) == 0:
		return errors.New("no capabilities (declare at least one, e.g. read-only)")
	case t.Timeout < 0:
		return fmt.Errorf("negative timeout %v", t.Timeout)
	}
	for i, c := range t.Capabilities {
		if !c.Valid() {
			return fmt.Errorf("invalid capability %q", c)
		}
		if slices.Contains(t.Capabilities[:i], c) {
			return fmt.Errorf("capability %q listed twice", c)
		}
	}
	return nil
}

// wrapOutput turns a handler's output into the result envelope.
func wrapOutput(out any) protocol.ToolResult {
	switch v := out.(type) {
	case protocol.ToolResult:
		return normalizeEnvelope(v)
	case *protocol.ToolResult:
		if v == nil {
			return protocol.ToolResult{OK: true}
		}
		return normalizeEnvelope(*v)
	}
	return protocol.OKResult(out)
}

// normalizeEnvelope returns an explicit envelope unchanged unless it is
// malformed: a failure without an error or with an unknown code becomes
// TOOL_FAILED, so the result frame stays valid.
func normalizeEnvelope(r protocol.ToolResult) protocol.ToolResult {
	if r.OK {
		return r
	}
	switch {
	case r.Error == nil:
		r.Error = &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "tool failed without an error"}
	case !r.Error.Code.Valid():
		e := *r.Error
		e.Message = fmt.Sprintf("%s (unknown error code %q)", e.Message, e.Code)
		e.Code = protocol.CodeToolFailed
		r.Error = &e
	}
	return r
}

// List returns the descriptors of all tools in registration order.
func (r *Registry) List() []protocol.ToolDescriptor {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]protocol.ToolDescriptor, 0, len(r.order))
	for _, name := range r.order {
		out = append(out, cloneDescriptor(r.tools[name].desc))
	}
	return out
}

// Describe returns the descriptor of the named tool.
func (r *Registry) Describe(name string) (protocol.ToolDescriptor, bool) {
	e := r.lookup(name)
	if e == nil {
		return protocol.ToolDescriptor{}, false
	}
	return cloneDescriptor(e.desc), true
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

func (r *Registry) lookup(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools[name]
}

func cloneDescriptor(d protocol.ToolDescriptor) protocol.ToolDescriptor {
	d.InputSchema = slices.Clone(d.InputSchema)
	d.OutputSchema = slices.Clone(d.OutputSchema)
	d.Capabilities = slices.Clone(d.Capabilities)
	return d
}

// BeginShutdown makes every later call fail with RUNTIME_SHUTTING_DOWN and
// cancels the calls in flight, which resolve with RUNTIME_SHUTTING_DOWN too
// (handlers see their context cancelled). It is idempotent; use
// [Registry.WaitIdle] to wait for the handlers to return.
func (r *Registry) BeginShutdown() {
	r.closed.Store(true)
	r.flightMu.Lock()
	calls := make([]*callState, 0, len(r.calls))
	for c := range r.calls {
		calls = append(calls, c)
	}
	r.flightMu.Unlock()
	for _, c := range calls {
		c.cancel(errShutdown)
	}
}

// ShuttingDown reports whether [Registry.BeginShutdown] was called.
func (r *Registry) ShuttingDown() bool { return r.closed.Load() }

// InFlight returns the number of handlers still running, including those
// whose call already resolved (timed out or cancelled) but which have not
// returned yet.
func (r *Registry) InFlight() int {
	r.flightMu.Lock()
	defer r.flightMu.Unlock()
	return r.inFlight
}

// WaitIdle waits until no handler is running ([Registry.InFlight] is 0) or
// ctx ends, whose error it then returns.
func (r *Registry) WaitIdle(ctx context.Context) error {
	r.flightMu.Lock()
	if r.inFlight == 0 {
		r.flightMu.Unlock()
		return nil
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	idle := r.idle
	r.flightMu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for idle registry: %w", ctx.Err())
	}
}

func (r *Registry) enter() {
	r.flightMu.Lock()
	r.inFlight++
	r.flightMu.Unlock()
}

func (r *Registry) leave() {
	r.flightMu.Lock()
	defer r.flightMu.Unlock()
	r.inFlight--
	if r.inFlight == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

// track registers a call for cancellation at shutdown; it reports false
// when the registry is already shutting down.
func (r *Registry) track(c *callState) bool {
	r.flightMu.Lock()
	defer r.flightMu.Unlock()
	if r.closed.Load() {
		return false
	}
	if r.calls == nil {
		r.calls = make(map[*callState]struct{})
	}
	r.calls[c] = struct{}{}
	return true
}

// untrack forgets a resolved call.
func (r *Registry) untrack(c *callState) {
	r.flightMu.Lock()
	delete(r.calls, c)
	r.flightMu.Unlock()
}

// plainValue reports whether a value of type t holds no references
// (pointers, slices, maps, interfaces, channels, funcs), so that copies of
// it share nothing.
func plainValue(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plainValue(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainValue(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// Signature is the Go input and output type of a registered tool's handler,
// for code generators (the frontend's TypeScript types).
type Signature struct {
	In, Out reflect.Type
}

// Signature returns the Go input and output type of the named tool.
func (r *Registry) Signature(name string) (Signature, bool) {
	e := r.lookup(name)
	if e == nil {
		return Signature{}, false
	}
	return e.sig, true
}
