package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// Def is one row of a tool package's registration table: a tool's static
// definition (as in [Tool]) and its handler. A package lists its tools as
// a []Def and hands the table to [RegisterAll], so the definitions read as
// one short table and the handlers are named methods below it.
type Def struct {
	Name         string
	Description  string
	Capabilities []protocol.Capability
	Timeout      time.Duration
	MaxTimeout   time.Duration
	// ArgCapabilities: see [Tool.ArgCapabilities].
	ArgCapabilities func(args json.RawMessage) []protocol.Capability
	// Inline: see [Tool.Inline].
	Inline func(args json.RawMessage) bool
	// Handler runs the tool; make it with [Handle].
	Handler Handler
}

// Handler is a typed tool handler made ready for a [Def] by [Handle].
type Handler struct {
	register func(r *Registry, t Tool)
}

// Handle binds a typed handler for a registration table. The input and
// output types work as with [Register].
func Handle[In, Out any](h func(ctx context.Context, call *Call, in In) (Out, error)) Handler {
	return Handler{register: func(r *Registry, t Tool) { Register(r, t, h) }}
}

// RegisterAll registers the tools of defs in order, as [Register] does,
// and panics as it does on a bad registration (a row without a handler
// included).
func RegisterAll(r *Registry, defs []Def) {
	for _, d := range defs {
		if d.Handler.register == nil {
			panic(fmt.Sprintf("registry: register tool %q: nil handler", d.Name))
		}
		d.Handler.register(r, Tool{Name: d.Name, Description: d.Description, Capabilities: d.Capabilities,
			Timeout: d.Timeout, MaxTimeout: d.MaxTimeout, ArgCapabilities: d.ArgCapabilities, Inline: d.Inline})
	}
}
