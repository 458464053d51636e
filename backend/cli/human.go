package cli

import (
	"encoding/json"
	"strings"
	"time"
)

// humanCommand is the CLI's own text rendering of a mapped command's
// result (without --json), with the flags that tune it. Those flags are
// the CLI's: they are never sent to the tool.
type humanCommand struct {
	// booleans are its flags that never take the next word as a value.
	booleans []string
	// flags are all its own flags (booleans included).
	flags []string
	// help describes the text output and its flags in the command's help.
	help string
	// prepare adjusts the tool's parameters from its own flags.
	prepare func(r *runner, p Params)
	// render prints a successful result and returns the exit code.
	render func(r *runner, p Params, content json.RawMessage) int
}

// humanCommands are the mapped commands rendered as text, by name.
var humanCommands = map[string]humanCommand{
	"status": {
		help:     "Prints git's long status (-s/--short: \"XY path\" lines; -b/--branch: with the branch line); --json for the result.",
		booleans: []string{"short", "s", "branch", "b", "sb", "long"},
		flags:    []string{"short", "s", "branch", "b", "sb", "long"},
		render:   (*runner).renderStatusCmd,
	},
	"diff": {
		help:     "Prints a unified patch that git apply and patch take (--staged/--cached: the staged changes; --numstat: counts only); --json for the result.",
		booleans: []string{"staged", "cached", "numstat"},
		flags:    []string{"staged", "cached", "numstat"},
		prepare: func(r *runner, p Params) {
			if _, set := p["scope"]; !set && r.a.Bool("staged", "cached") {
				p["scope"] = word("staged")
			}
			if r.a.Bool("numstat") {
				p["includePatches"] = word("false")
			}
			if _, set := p["binary"]; !set && !r.p.json {
				p["binary"] = word("true") // a patch git apply can apply, binary files included
			}
		},
		render: (*runner).renderDiffCmd,
	},
	"log": {
		help:     "Prints one line per commit: hash, refs, subject (--format=medium, or a template of %H %h %an %ae %ad %aI %s %d %D %n); --json for the result.",
		booleans: []string{"oneline"},
		flags:    []string{"oneline", "format", "pretty"},
		render:   (*runner).renderLogCmd,
	},
	"show": {
		help:     "Prints the commit as git show --diff-merges=first-parent does (header, indented message, patch; --numstat: counts instead of the patch); --json for the result.",
		booleans: []string{"numstat"},
		flags:    []string{"numstat"},
		prepare: func(r *runner, p Params) {
			if _, set := p["includePatches"]; !set && !r.p.json && !r.a.Bool("numstat") {
				p["includePatches"] = word("true")
			}
		},
		render: func(r *runner, _ Params, content json.RawMessage) int {
			return r.printText(renderShow(content, r.a.Bool("numstat"), r.colors()))
		},
	},
	"blame": {
		help:     "Prints git blame's default lines (dates in the local time zone; root commits without \"^\", as with --root); --json for the result.",
		booleans: []string{"root"},
		flags:    []string{"root"},
		render: func(r *runner, _ Params, content json.RawMessage) int {
			return r.printText(renderBlame(content, time.Local))
		},
	},
	"tabs": {
		help: "Prints the browser and workspace tabs as tables (* marks the active one); --json for the result.",
		render: func(r *runner, _ Params, content json.RawMessage) int {
			return r.printText(renderTabs(content, r.colors()))
		},
	},
	"spaces": {
		help: "Prints the spaces as a table (* marks the active one); --json for the result.",
		render: func(r *runner, _ Params, content json.RawMessage) int {
			return r.printText(renderSpaces(content, r.colors()))
		},
	},
}

// booleansFor returns the global boolean flags plus a human command's own.
func booleansFor(cmd string) map[string]bool {
	h, ok := humanCommands[cmd]
	if !ok || len(h.booleans) == 0 {
		return globalBooleans
	}
	return withBooleans(h.booleans)
}

// withBooleans is globalBooleans and extra.
func withBooleans(extra []string) map[string]bool {
	out := make(map[string]bool, len(globalBooleans)+len(extra))
	for k, v := range globalBooleans {
		out[k] = v
	}
	for _, b := range extra {
		out[b] = true
	}
	return out
}

// colors returns the palette of this run (--color, NO_COLOR, a terminal).
func (r *runner) colors() palette { return palette{on: r.color} }

// printText prints rendered text as it is (unless it could not be
// rendered: then the content as JSON, as for any command).
func (r *runner) printText(text string, ok bool) int {
	if !ok {
		return -1
	}
	r.p.raw(text)
	return exitOK
}

// renderStatusCmd prints git_status's result; outside a repository it says
// so as git does and exits 128.
func (r *runner) renderStatusCmd(p Params, content json.RawMessage) int {
	o := statusOptions{short: r.a.Bool("short", "s", "sb") && !r.a.Bool("long"), branch: r.a.Bool("branch", "b", "sb")}
	text, notRepo, ok := renderStatus(content, o, commandBase(p), r.colors())
	if notRepo {
		r.p.stderr("%s", notRepoMessage)
		return exitNotRepo
	}
	return r.printText(text, ok)
}

// renderDiffCmd prints git_diff's result as a patch (or numstat lines);
// outside a repository it says so as git does and exits 128.
func (r *runner) renderDiffCmd(p Params, content json.RawMessage) int {
	text, skipped, notRepo, ok := renderDiff(content, paramFalse(p["includePatches"]), r.colors())
	if notRepo {
		r.p.stderr("%s", notRepoMessage)
		return exitNotRepo
	}
	if !r.p.quiet {
		for _, s := range skipped {
			r.p.stderr("meith: %s is a large untracked file; its patch is left out", s)
		}
	}
	return r.printText(text, ok)
}

// renderLogCmd prints git_log's result (--oneline, --format=…).
func (r *runner) renderLogCmd(_ Params, content json.RawMessage) int {
	format, _, _ := r.a.Value("format", "pretty")
	if r.a.Bool("oneline") {
		format = logOneline
	}
	return r.printText(renderLog(content, format, r.colors()))
}

// paramFalse reports a parameter given as false.
func paramFalse(v any) bool {
	switch v := v.(type) {
	case word:
		return strings.EqualFold(string(v), "false")
	case string:
		return strings.EqualFold(v, "false")
	case bool:
		return !v
	case json.RawMessage:
		return strings.TrimSpace(string(v)) == "false"
	}
	return false
}
