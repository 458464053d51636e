package permission

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

func TestParseCapabilities(t *testing.T) {
	tests := []struct {
		in      string
		want    []protocol.Capability
		wantErr string
	}{
		{"writes-files,controls-browser", []protocol.Capability{wf, cb}, ""},
		{" writes-files , destructive ,", []protocol.Capability{wf, de}, ""},
		{"starts-process,starts-process", []protocol.Capability{sp}, ""},
		{"", nil, ""},
		{"read-only,accesses-network", []protocol.Capability{ro, an}, ""},
		{"writes-files,write-files", nil, `unknown capability "write-files": valid capabilities are read-only, writes-files, controls-browser, starts-process, accesses-network, destructive`},
		{"WRITES-FILES", nil, `unknown capability "WRITES-FILES"`},
	}
	for _, tt := range tests {
		got, err := ParseCapabilities(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || !errors.Is(err, ErrUnknownCapability) {
				t.Errorf("ParseCapabilities(%q) error = %v, want %q wrapping ErrUnknownCapability", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseCapabilities(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestGatingCapability(t *testing.T) {
	tests := []struct {
		in     []protocol.Capability
		want   protocol.Capability
		wantOK bool
	}{
		{nil, "", false},
		{[]protocol.Capability{ro, an}, "", false},
		{[]protocol.Capability{cb}, cb, true},
		{[]protocol.Capability{cb, sp}, sp, true},
		{[]protocol.Capability{sp, wf, cb}, wf, true},
		{[]protocol.Capability{cb, wf, de, sp}, de, true},
		{[]protocol.Capability{an, cb}, cb, true},
	}
	for _, tt := range tests {
		got, ok := GatingCapability(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("GatingCapability(%v) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestActionLabel(t *testing.T) {
	tests := []struct {
		in   protocol.Capability
		want string
	}{
		{ro, "read state"},
		{wf, "write files"},
		{sp, "start a process"},
		{cb, "control the browser"},
		{an, "access the network"},
		{de, "perform a destructive action"},
		{"teleports", "teleports"},
	}
	for _, tt := range tests {
		if got := ActionLabel(tt.in); got != tt.want {
			t.Errorf("ActionLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
