package protocol_test

import (
	"slices"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

func TestCapabilitySets(t *testing.T) {
	tests := []struct {
		name string
		got  protocol.CapabilitySet
		want []protocol.Capability
	}{
		{"ReadOnly", protocol.ReadOnly(), []protocol.Capability{protocol.CapReadOnly}},
		{"WritesFiles", protocol.WritesFiles(), []protocol.Capability{protocol.CapWritesFiles}},
		{"ControlsBrowser", protocol.ControlsBrowser(), []protocol.Capability{protocol.CapControlsBrowser}},
		{"StartsProcess", protocol.StartsProcess(), []protocol.Capability{protocol.CapStartsProcess}},
		{"Destructive", protocol.Destructive(), []protocol.Capability{protocol.CapDestructive}},
		{"ReadOnly.Plus", protocol.ReadOnly().Plus(protocol.CapAccessesNetwork),
			[]protocol.Capability{protocol.CapReadOnly, protocol.CapAccessesNetwork}},
		{"ControlsBrowser.Plus keeps the order", protocol.ControlsBrowser().Plus(protocol.CapReadOnly),
			[]protocol.Capability{protocol.CapControlsBrowser, protocol.CapReadOnly}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
		for _, c := range tt.got {
			if !c.Valid() {
				t.Errorf("%s holds invalid capability %q", tt.name, c)
			}
		}
	}
}

// A set is the caller's own: changing it changes no other tool's set.
func TestCapabilitySetsAreFresh(t *testing.T) {
	a := protocol.ReadOnly()
	a[0] = protocol.CapDestructive
	if got := protocol.ReadOnly(); got[0] != protocol.CapReadOnly {
		t.Fatalf("ReadOnly() after changing an earlier result = %v, want [read-only]", got)
	}
	base := protocol.StartsProcess()
	plus := base.Plus(protocol.CapAccessesNetwork)
	plus[0] = protocol.CapDestructive
	if base[0] != protocol.CapStartsProcess {
		t.Fatalf("Plus shares its receiver's array: base = %v", base)
	}
	// Assignable where a tool definition wants a plain slice.
	var caps []protocol.Capability = protocol.WritesFiles()
	if len(caps) != 1 {
		t.Fatalf("WritesFiles() as []Capability = %v", caps)
	}
}
