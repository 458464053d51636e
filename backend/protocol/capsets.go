package protocol

// CapabilitySet is the capabilities one tool declares, in the order it
// declares them (the order shows in tool lists, help and permission
// messages). It converts to []Capability where a tool's definition wants
// one. The sets below are functions, so every call gets a fresh slice and
// no tool can change another's set.
type CapabilitySet []Capability

// Plus returns a new set: s followed by more.
func (s CapabilitySet) Plus(more ...Capability) CapabilitySet {
	out := make(CapabilitySet, 0, len(s)+len(more))
	return append(append(out, s...), more...)
}

// ReadOnly is the set of a tool that only reads: {read-only}.
func ReadOnly() CapabilitySet { return CapabilitySet{CapReadOnly} }

// WritesFiles is the set of a tool that changes files or persisted state:
// {writes-files}.
func WritesFiles() CapabilitySet { return CapabilitySet{CapWritesFiles} }

// ControlsBrowser is the set of a tool that drives a browser tab:
// {controls-browser}.
func ControlsBrowser() CapabilitySet { return CapabilitySet{CapControlsBrowser} }

// StartsProcess is the set of a tool that runs or signals a process:
// {starts-process}.
func StartsProcess() CapabilitySet { return CapabilitySet{CapStartsProcess} }

// Destructive is the set of a tool that discards something for good:
// {destructive}.
func Destructive() CapabilitySet { return CapabilitySet{CapDestructive} }
