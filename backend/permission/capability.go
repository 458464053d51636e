package permission

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

// ErrUnknownCapability is wrapped by [ParseCapabilities] for a value that is
// not a capability.
var ErrUnknownCapability = errors.New("unknown capability")

// ParseCapabilities parses a comma-separated capability list such as
// "writes-files,controls-browser" (the value of meith serve --grant-cli).
// Spaces around items and empty items are ignored and duplicates are dropped;
// an empty list gives nil. An unknown item gives an error wrapping
// [ErrUnknownCapability] that names it and the valid capabilities.
func ParseCapabilities(list string) ([]protocol.Capability, error) {
	var caps []protocol.Capability
	for item := range strings.SplitSeq(list, ",") {
		c := protocol.Capability(strings.TrimSpace(item))
		switch {
		case c == "":
			continue
		case !c.Valid():
			return nil, fmt.Errorf("%w %q: valid capabilities are %s",
				ErrUnknownCapability, string(c), protocol.JoinCapabilities(protocol.Capabilities, ", "))
		case !slices.Contains(caps, c):
			caps = append(caps, c)
		}
	}
	return caps, nil
}

// severity is the order in which a capability gates a call, most severe
// first (the original's agent/permissions.ts).
var severity = []protocol.Capability{
	protocol.CapDestructive, protocol.CapWritesFiles, protocol.CapStartsProcess, protocol.CapControlsBrowser,
}

// GatingCapability returns the capability an approval prompt is about: the
// most severe privileged capability in caps, in the order destructive >
// writes-files > starts-process > controls-browser. ok is false when caps has
// no privileged capability, so no approval is needed.
func GatingCapability(caps []protocol.Capability) (c protocol.Capability, ok bool) {
	for _, s := range severity {
		if slices.Contains(caps, s) {
			return s, true
		}
	}
	return "", false
}

// ActionLabel returns the action phrase of a capability for prompts ("The
// agent wants to run X to <action>"): "write files", "control the browser"…
// An unknown capability gives its own name.
func ActionLabel(c protocol.Capability) string {
	switch c {
	case protocol.CapReadOnly:
		return "read state"
	case protocol.CapWritesFiles:
		return "write files"
	case protocol.CapStartsProcess:
		return "start a process"
	case protocol.CapControlsBrowser:
		return "control the browser"
	case protocol.CapAccessesNetwork:
		return "access the network"
	case protocol.CapDestructive:
		return "perform a destructive action"
	}
	return string(c)
}

// missingCaps returns the capabilities of need missing from have, in order.
func missingCaps(have, need []protocol.Capability) []protocol.Capability {
	var out []protocol.Capability
	for _, c := range need {
		if !slices.Contains(have, c) {
			out = append(out, c)
		}
	}
	return out
}
