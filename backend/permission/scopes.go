package permission

import (
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/meith-dev/meith/backend/internal/procfs"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TimedScope is how long "for 15 minutes" ([AllowFor15Minutes]) allows an
// executable in a folder.
const TimedScope = 15 * time.Minute

// TerminalShell is a terminal meith started, as [Options.Terminals] lists
// it: its id, its shell process (pid and start time, so a reused pid does
// not match) and the name the prompt gives it (the space it belongs to).
type TerminalShell struct {
	ID        string
	PID       int
	StartTime uint64
	// Label names the terminal in a prompt, e.g. the space's name
	// ("todo-api"); "" gives just "Terminal".
	Label string
}

// OriginKind says what [Origin] names.
type OriginKind string

// The kinds of origin.
const (
	// OriginTerminal: the peer descends from the shell of a terminal meith
	// started.
	OriginTerminal OriginKind = "terminal"
	// OriginProcess: any other process; named by its executable and folder.
	OriginProcess OriginKind = "process"
	// OriginUnknown: no peer (an in-process call) or it is gone.
	OriginUnknown OriginKind = "unknown"
)

// Origin names where a call comes from, resolved by the service from the
// socket peer's SO_PEERCRED pid and its ancestry in /proc, never from what
// the client says.
type Origin struct {
	Kind OriginKind `json:"kind"`
	// Label is what the prompt shows after "from": "Terminal · todo-api",
	// or "meith in /home/me/todo-api".
	Label string `json:"label"`
	// TerminalID is the terminal of an OriginTerminal.
	TerminalID string `json:"terminalId,omitempty"`
	// Exe and Folder are the peer's executable and working directory
	// (from /proc), when known.
	Exe    string `json:"exe,omitempty"`
	Folder string `json:"folder,omitempty"`
}

// resolveOrigin names the peer: the terminal of live whose shell it
// descends from (its ancestry walked from /proc, its start time checked
// against the one seen at connect), else its executable and folder.
func (s *Service) resolveOrigin(peer *registry.Peer, live []TerminalShell) Origin {
	if peer == nil || peer.PID <= 0 {
		return Origin{Kind: OriginUnknown, Label: "an unknown process"}
	}
	o := Origin{Kind: OriginProcess, Exe: peer.Exe, Folder: peer.Cwd}
	if len(live) > 0 {
		if t, ok := terminalOf(peer, live); ok {
			o.Kind, o.TerminalID, o.Label = OriginTerminal, t.ID, "Terminal"
			if t.Label != "" {
				o.Label += " · " + t.Label
			}
			return o
		}
	}
	switch {
	case peer.Exe != "" && peer.Cwd != "":
		o.Label = filepath.Base(peer.Exe) + " in " + peer.Cwd
	case peer.Exe != "":
		o.Label = filepath.Base(peer.Exe)
	default:
		o.Label = "process " + strconv.Itoa(peer.PID)
	}
	return o
}

// terminalOf returns the terminal among terms whose shell is the peer or
// one of its ancestors.
func terminalOf(peer *registry.Peer, terms []TerminalShell) (TerminalShell, bool) {
	for _, st := range procfs.Ancestry(peer.PID, peer.StartTime) {
		for _, t := range terms {
			if t.PID == st.PID && t.StartTime != 0 && t.StartTime == st.StartTime {
				return t, true
			}
		}
	}
	return TerminalShell{}, false
}

// offeredScopes returns the decisions a prompt for a call from o offers,
// the default (Allow once) first and Deny last: "this terminal" for a call
// from a terminal, "for 15 minutes" when the executable and folder are
// known, "always for this folder" when the folder is known and the call is
// not destructive.
func offeredScopes(o Origin, privileged []protocol.Capability) []Decision {
	out := []Decision{AllowOnce}
	if o.Kind == OriginTerminal {
		out = append(out, AllowThisTerminal)
	}
	if o.Exe != "" && filepath.IsAbs(o.Folder) {
		out = append(out, AllowFor15Minutes)
	}
	if filepath.IsAbs(o.Folder) && !slices.Contains(privileged, protocol.CapDestructive) {
		out = append(out, AllowAlwaysInFolder)
	}
	return append(out, Deny)
}

// terminalGrant allows the calls from one terminal.
type terminalGrant struct {
	terminalID string
	caps       []protocol.Capability
}

// timedGrant allows one executable in one folder until it expires.
type timedGrant struct {
	exe, folder string
	caps        []protocol.Capability
	expires     time.Time
}

// scopeAllows reports which scoped grant or folder rule covers every
// capability in privileged for a call from o (a DecidedBy… name), or "".
// Grants of terminals that are gone and expired ones are dropped on the way.
func (s *Service) scopeAllows(o Origin, live []TerminalShell, privileged []protocol.Capability) string {
	now := s.now()
	s.mu.Lock()
	s.pruneTerminalsLocked(live)
	s.timed = slices.DeleteFunc(s.timed, func(g timedGrant) bool { return !now.Before(g.expires) })
	for _, g := range s.termGrants {
		if o.Kind == OriginTerminal && g.terminalID == o.TerminalID && len(missingCaps(g.caps, privileged)) == 0 {
			s.mu.Unlock()
			return DecidedByTerminal
		}
	}
	for _, g := range s.timed {
		if o.Exe != "" && g.exe == o.Exe && g.folder == o.Folder && len(missingCaps(g.caps, privileged)) == 0 {
			s.mu.Unlock()
			return DecidedByTimedScope
		}
	}
	s.mu.Unlock()
	if s.rules.covers(o.Folder, privileged) {
		return DecidedByFolderRule
	}
	return ""
}

// RevokeTerminal drops the "this terminal" grants of a terminal: the
// instance calls it when the terminal closes (a terminal no longer listed
// by [Options.Terminals] loses them anyway at the next check).
func (s *Service) RevokeTerminal(terminalID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.termGrants = slices.DeleteFunc(s.termGrants, func(g terminalGrant) bool { return g.terminalID == terminalID })
}

// pruneTerminalsLocked drops the grants of terminals not in live.
func (s *Service) pruneTerminalsLocked(live []TerminalShell) {
	s.termGrants = slices.DeleteFunc(s.termGrants, func(g terminalGrant) bool {
		return !slices.ContainsFunc(live, func(t TerminalShell) bool { return t.ID == g.terminalID })
	})
}

// TerminalGranted reports whether a "this terminal" grant of the terminal
// is held (a terminal no longer running holds none).
func (s *Service) TerminalGranted(terminalID string) bool {
	live := s.liveTerminals()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneTerminalsLocked(live)
	return slices.ContainsFunc(s.termGrants, func(g terminalGrant) bool { return g.terminalID == terminalID })
}

// now is the service's clock.
func (s *Service) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// liveTerminals lists the terminals, none without [Options.Terminals].
func (s *Service) liveTerminals() []TerminalShell {
	if s.terminals == nil {
		return nil
	}
	return s.terminals()
}
