package protocol

import "strings"

// Caller names who is calling a tool. The socket only honours [CallerCLI] and
// [CallerPlugin]; the other values are set by trusted in-process code.
type Caller string

// The callers of the spec's "Caller Identity" section.
const (
	CallerCLI      Caller = "cli"
	CallerRenderer Caller = "renderer"
	CallerAgent    Caller = "agent"
	CallerPlugin   Caller = "plugin"
	CallerInternal Caller = "internal"
)

// Callers lists every valid caller in a stable order.
var Callers = []Caller{CallerCLI, CallerRenderer, CallerAgent, CallerPlugin, CallerInternal}

// Valid reports whether c is one of [Callers].
func (c Caller) Valid() bool {
	for _, k := range Callers {
		if c == k {
			return true
		}
	}
	return false
}

// Trusted reports whether c is an in-process caller that the permission
// service allows without a grant (renderer and internal).
func (c Caller) Trusted() bool { return c == CallerRenderer || c == CallerInternal }

// ClientInfo is the caller context of a call as it travels on the wire. On the
// socket only Caller (cli|plugin) is honoured as identity; SessionID is
// replaced by the server, and Cwd, SpaceID and TabID are scope hints.
type ClientInfo struct {
	Caller    Caller `json:"caller"`
	Cwd       string `json:"cwd,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	SpaceID   string `json:"spaceId,omitempty"`
	TabID     string `json:"tabId,omitempty"`
}

// Capability is a piece of safety metadata a tool declares. The permission
// service treats the privileged ones as authorization inputs.
type Capability string

// The capability vocabulary of the spec.
const (
	CapReadOnly        Capability = "read-only"
	CapWritesFiles     Capability = "writes-files"
	CapControlsBrowser Capability = "controls-browser"
	CapStartsProcess   Capability = "starts-process"
	CapAccessesNetwork Capability = "accesses-network"
	CapDestructive     Capability = "destructive"
)

// Capabilities lists every valid capability in a stable order.
var Capabilities = []Capability{
	CapReadOnly, CapWritesFiles, CapControlsBrowser, CapStartsProcess, CapAccessesNetwork, CapDestructive,
}

// Valid reports whether c is one of [Capabilities].
func (c Capability) Valid() bool {
	for _, k := range Capabilities {
		if c == k {
			return true
		}
	}
	return false
}

// Privileged reports whether c needs a grant for untrusted callers:
// writes-files, controls-browser, starts-process and destructive.
// read-only and accesses-network are never gated on their own.
func (c Capability) Privileged() bool {
	switch c {
	case CapWritesFiles, CapControlsBrowser, CapStartsProcess, CapDestructive:
		return true
	}
	return false
}

// PrivilegedOf returns the privileged capabilities among caps, in order.
func PrivilegedOf(caps []Capability) []Capability {
	var out []Capability
	for _, c := range caps {
		if c.Privileged() {
			out = append(out, c)
		}
	}
	return out
}

// JoinCapabilities joins caps with sep ("writes-files, controls-browser").
func JoinCapabilities(caps []Capability, sep string) string {
	s := make([]string, len(caps))
	for i, c := range caps {
		s[i] = string(c)
	}
	return strings.Join(s, sep)
}
