package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

const offlineNote = "(Start the app to see this tool's parameters.)"

// help answers `meith <cmd> --help`, `meith help <cmd>` and
// `meith call <tool> --help`.
func (r *runner) help(ctx context.Context, cmd string, rest []string) int {
	switch cmd {
	case "":
		r.topHelp(ctx)
		return exitOK
	case "call":
		if len(rest) == 0 {
			r.p.stdout("%s", callHelp)
			return exitOK
		}
		return r.toolHelp(ctx, rest[0])
	case "app":
		r.appHelp()
		return exitOK
	case "serve":
		r.p.stdout("%s", serveHelp)
		return exitOK
	}
	if text, ok := builtinHelp[cmd]; ok {
		r.p.stdout("%s", text)
		return exitOK
	}
	if spec, ok := lookupCommand(cmd); ok {
		d, err := r.describe(ctx, spec.Tool)
		var b strings.Builder
		writeCommandHelp(&b, spec, d, err)
		r.p.stdout("%s", strings.TrimRight(b.String(), "\n"))
		return exitOK
	}
	// Not a command: maybe a tool name.
	if d, err := r.describe(ctx, cmd); err == nil && d != nil {
		var b strings.Builder
		writeToolHelp(&b, *d)
		r.p.stdout("%s", strings.TrimRight(b.String(), "\n"))
		return exitOK
	}
	return r.unknownCommand(cmd)
}

// toolHelp is `meith call <tool> --help`.
func (r *runner) toolHelp(ctx context.Context, tool string) int {
	d, err := r.describe(ctx, tool)
	if err != nil {
		r.p.stderr("Cannot describe %q: %v", tool, err)
		return exitFailure
	}
	if d == nil {
		r.p.stderr("Cannot describe %q: the runtime has no such tool. Run \"meith tools\" to list them.", tool)
		return exitFailure
	}
	var b strings.Builder
	writeToolHelp(&b, *d)
	r.p.stdout("%s", strings.TrimRight(b.String(), "\n"))
	return exitOK
}

// describe fetches tool's descriptor from the runtime, within helpTimeout
// (or --timeout). It returns nil, nil when the runtime lacks the tool.
func (r *runner) describe(ctx context.Context, tool string) (*protocol.ToolDescriptor, error) {
	t, err := r.resolve()
	if err != nil {
		return nil, err
	}
	limit := helpTimeout
	if r.timeout > 0 {
		limit = r.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c, err := r.dial(ctx, t.SocketPath)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	return findTool(tools, tool), nil
}

// writeCommandHelp renders the help of a mapped command: the static part
// always, then the live descriptor d — or the offline note when err is set,
// or a note when the runtime lacks the tool.
func writeCommandHelp(w io.Writer, c Command, d *protocol.ToolDescriptor, err error) {
	fmt.Fprintf(w, "meith %s — %s\n\n", c.Name, c.Summary)
	fmt.Fprintf(w, "Usage:\n  meith %s%s [--key value ...]\n\n", c.Name, slotUsage(c.Slots))
	if h, ok := humanCommands[c.Name]; ok && h.help != "" {
		fmt.Fprintf(w, "%s\n\n", h.help)
	}
	fmt.Fprintf(w, "Runtime tool: %s\n", c.Tool)
	switch {
	case err != nil:
		fmt.Fprintf(w, "\n%s\n", offlineNote)
	case d == nil:
		fmt.Fprintf(w, "\n(The running runtime has no %q tool; this CLI and the app may be different versions.)\n", c.Tool)
	default:
		writeDescriptor(w, *d)
	}
}

// writeToolHelp renders `meith call <tool> --help`.
func writeToolHelp(w io.Writer, d protocol.ToolDescriptor) {
	fmt.Fprintf(w, "meith call %s\n\n", d.Name)
	fmt.Fprintf(w, "Usage:\n  meith call %s [--key value ...]\n", d.Name)
	if c, ok := commandForTool(d.Name); ok {
		fmt.Fprintf(w, "  meith %s%s [--key value ...]\n", c.Name, slotUsage(c.Slots))
	}
	writeDescriptor(w, d)
}

func slotUsage(slots []string) string {
	var b strings.Builder
	for _, s := range slots {
		b.WriteString(" <" + s + ">")
	}
	return b.String()
}

// writeDescriptor renders a descriptor: description, parameters from the
// input schema, capabilities.
func writeDescriptor(w io.Writer, d protocol.ToolDescriptor) {
	if d.Description != "" {
		fmt.Fprintf(w, "\n%s\n", d.Description)
	}
	props, err := orderedProperties(d.InputSchema)
	switch {
	case err != nil:
		fmt.Fprintf(w, "\nParameters: (unreadable input schema: %v)\n", err)
	case len(props) == 0:
		fmt.Fprintf(w, "\nParameters: none\n")
	default:
		fmt.Fprintf(w, "\nParameters:\n")
		for _, p := range props {
			writeParam(w, p)
		}
	}
	if len(d.Capabilities) > 0 {
		fmt.Fprintf(w, "\nCapabilities: %s\n", protocol.JoinCapabilities(d.Capabilities, ", "))
	}
}

// writeParam renders one parameter: "  --key <type> (required)", then its
// description, allowed values, default and range, indented.
func writeParam(w io.Writer, p schemaProperty) {
	s := &p.Schema
	line := fmt.Sprintf("  --%s <%s>", p.Name, s.typeLabel())
	if p.Required {
		line += " (required)"
	}
	fmt.Fprintln(w, line)
	for _, l := range strings.Split(strings.TrimSpace(s.Description), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	var extra []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = jsonText(e)
		}
		extra = append(extra, "one of: "+strings.Join(vals, ", "))
	}
	if len(s.Default) > 0 {
		extra = append(extra, "default: "+jsonText(s.Default))
	}
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		extra = append(extra, fmt.Sprintf("range: %v..%v", *s.Minimum, *s.Maximum))
	case s.Minimum != nil:
		extra = append(extra, fmt.Sprintf("minimum: %v", *s.Minimum))
	case s.Maximum != nil:
		extra = append(extra, fmt.Sprintf("maximum: %v", *s.Maximum))
	}
	types := s.types()
	if (types["object"] || (types["array"] && s.Items != nil && s.Items.types()["object"])) && !types["string"] {
		extra = append(extra, fmt.Sprintf("pass JSON: --%s-json '<json>'", p.Name))
	}
	if len(extra) > 0 {
		fmt.Fprintf(w, "      %s\n", strings.Join(extra, "; "))
	}
}

// jsonText shows a JSON value for help: strings unquoted, others compact.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// topHelp prints the top-level help: the mapped commands whose tools the
// runtime has, when one answers within helpTimeout (unless --all), or
// every command.
func (r *runner) topHelp(ctx context.Context) {
	var has func(tool string) bool
	if !r.a.Bool("all") {
		has = r.runtimeTools(ctx)
	}
	var b strings.Builder
	writeTopHelpFor(&b, has)
	r.p.stdout("%s", strings.TrimRight(b.String(), "\n"))
}

// runtimeTools asks the target runtime for its tool names, within
// helpTimeout (or --timeout); nil when no runtime answers.
func (r *runner) runtimeTools(ctx context.Context) func(tool string) bool {
	t, err := r.resolve()
	if err != nil {
		return nil
	}
	limit := helpTimeout
	if r.timeout > 0 {
		limit = r.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c, err := r.dial(ctx, t.SocketPath)
	if err != nil {
		return nil
	}
	defer c.Close()
	list, err := c.ListTools(ctx)
	if err != nil {
		return nil
	}
	names := make(map[string]bool, len(list))
	for _, d := range list {
		names[d.Name] = true
	}
	return func(tool string) bool { return names[tool] }
}

// writeTopHelp renders `meith --help` with every mapped command.
func writeTopHelp(w io.Writer) { writeTopHelpFor(w, nil) }

// writeTopHelpFor renders `meith --help`: usage, built-ins, the mapped
// commands with their tools (only those has accepts, when has is set; a
// note then says how many are hidden), global flags, parameter syntax,
// target order and exit codes.
func writeTopHelpFor(w io.Writer, has func(tool string) bool) {
	fmt.Fprint(w, `meith — drive a running meith runtime from your terminal

Usage:
  meith <command> [args] [--key value ...]
  meith call <toolName> [--key value ...]
  meith serve [--grant-cli caps] [--label L]

Built-in commands:
`)
	rows := [][]string{}
	for _, b := range builtins {
		rows = append(rows, []string{b.Usage, b.Summary})
	}
	rows = append(rows, []string{"serve [--grant-cli caps] [--label L]", "Run the runtime headless (no window) until Ctrl+C"})
	writeColumns(w, rows, columnWidths(rows))

	var all [][]string
	hidden := 0
	for _, c := range commandTable {
		if has != nil && !has(c.Tool) {
			hidden++
			continue
		}
		all = append(all, []string{c.Name, c.Tool, c.Summary})
	}
	widths := columnWidths(all) // one alignment for every section
	for _, g := range groupOrder {
		rows = rows[:0]
		for _, c := range commandTable {
			if c.Group == g && (has == nil || has(c.Tool)) {
				rows = append(rows, []string{c.Name, c.Tool, c.Summary})
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g)
		writeColumns(w, rows, widths)
	}
	if hidden > 0 {
		fmt.Fprintf(w, "\n(%s whose tools this runtime lacks %s not listed; \"meith help --all\" lists every command.)\n",
			plural(hidden, "command"), map[bool]string{true: "is", false: "are"}[hidden == 1])
	}
	fmt.Fprint(w, `
Global flags (never sent to tools):
  --socket <path>       Talk to the runtime at this socket
  --instance <id>       Talk to the live instance with this pid or label ("meith app list")
  --timeout <ms>        Per-call timeout in milliseconds; progress restarts it (up to an hour)
  --json                Print the raw ToolResult envelope (or raw JSON) instead of text
  --color[=<when>]      Colour the text: auto (a terminal, unless NO_COLOR is set), always, never
  --quiet               Print only results: no progress, diagnostics or "ok"
  -v, --verbose         Also print the tool's streamed log events
  -V, --version         Print the CLI version
  -h, --help            Show help; "meith <command> --help" reads the tool's live schema
  --stdin               Read a JSON object of parameters from stdin (flags override it);
                        for "write", the file's content
  --yes                 Confirm a destructive command ("rm", "storage-clear", …); without it, it only says what it would do
  --arg-json <json>     Merge a JSON object into the parameters
  --<key>-json <json>   Send one parameter as JSON, e.g. --edits-json '[...]'

Parameters:
  --key value, --key=value (use this form for a value starting with "-"); a bare
  --key is true; -k is a short boolean flag. A repeated flag becomes an array, in
  order. Positionals fill the command's <slots>.
  Values are typed by the tool's schema; otherwise "50", "-2" and "3.14" are numbers
  and "true"/"false" booleans. --args takes every following word as the "args"
  array, and so does everything after "--".

Target runtime: --socket, else --instance, else the newest live instance, else
socketPath in $MEITH_HOME/config.json, else $MEITH_USER_DATA/tool.sock.

Exit status: 0 success; 1 tool error, usage error or runtime unreachable; 128 not a git
repository (status, diff); 130 interrupted.
`)
}

// columnWidths returns the width of every column but the last.
func columnWidths(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for i, cell := range row[:len(row)-1] {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	return widths
}

// writeColumns writes rows as columns of the given widths, two spaces apart
// (the last column is not padded).
func writeColumns(w io.Writer, rows [][]string, widths []int) {
	for _, row := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(cell))+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// appHelp prints the `meith app` help.
func (r *runner) appHelp() { r.p.stdout("%s", appHelpText) }

const appHelpText = `meith app — inspect and control running meith instances

Usage:
  meith app list                        List live instances (read from disk; no runtime needed)
  meith app health                      Print runtime health (app_health)
  meith app logs [--limit N] [--level L] [--search S]
                                        Print recent log entries, one per line (app_get_logs;
                                        --json for the raw entries)
  meith app kill [pid|label] [--all]    Send SIGTERM to an instance (or every one with --all)
  meith app bug-report [--logs-limit N] Export a bug report and print its path
  meith app screenshot                  Capture the app window and print the PNG path
  meith app help                        Show this help`

const callHelp = `Usage: meith call <toolName> [--key value ...]

Calls any tool the runtime registers, by its exact snake_case name.
"meith tools" lists them; "meith call <toolName> --help" describes one
from the runtime's live schema.`

const serveHelp = `Usage: meith serve [--grant-cli caps] [--label L] [--quiet]

Runs the meith runtime without a window until interrupted (Ctrl+C or SIGTERM).
--grant-cli lets every same-user CLI session use the given privileged
capabilities (comma-separated: writes-files, controls-browser, starts-process,
destructive). Run "meith serve --help" for the runtime's own help.`

var builtinHelp = map[string]string{
	"tools": `Usage: meith tools [filter] [--json]

Lists every tool the runtime exposes: its name, capabilities and description.
A filter keeps the tools whose name or description contains it. --json prints
the tool descriptors (name, description, inputSchema, outputSchema when the
tool describes its result, capabilities).`,
	"ping": `Usage: meith ping [--count N] [--delay-ms N]

Calls app_ping N times (default 4) over one connection and prints each round
trip and a min/avg/max summary. --delay-ms makes the runtime wait (streaming
progress) before each answer. Exits 1 if a call failed.`,
	"devlogs": `Usage: meith devlogs [--id <devServerId> | --cwd <dir>] [--no-replay]

Follows a dev server's logs (attach_process_logs) until Ctrl+C. Without --id
the dev server is found by --cwd, which defaults to the current directory.
--no-replay (or --replay false) skips the captured history. --json prints each
log event as a JSON line.`,
	"audit": `Usage: meith audit [--denied] [--tool <name>]… [--caller <caller>]… [--since <when>] [--until <when>]
                   [--search <text>] [--limit N] [--follow] [--json]

Prints the newest audit entries (audit_query; --limit, default 200), oldest
first: time, caller, tool, decision, duration. --denied keeps the calls that
did not run for want of approval (decisions deny, refused, cancelled,
timeout). --since and --until take an RFC 3339 time or a duration back from
now (30m, 1h, 7d). --follow then prints new entries as they are written
(audit_watch) until Ctrl+C. --json prints each entry as a JSON line.`,
	"agent": `Usage: meith agent [--space <spaceId>] [--cwd <dir>] [--session <sessionId>] <prompt…>
       meith agent list [--space <spaceId>] [--cwd <dir>]

Sends the prompt (or, with "-", standard input) to an agent session and
follows the run (agent_send_message): the answer streams to stdout, steps and
approvals to stderr. Without --session a new session is created in --cwd
(default: the current directory). Privileged tool calls of the agent wait for
approval in the meith window. Ctrl+C cancels the run (exit 130); a failed run
exits 1. "agent list" prints the sessions (agent_list_sessions).`,
	"help": `Usage: meith help [command]

Shows the top-level help, or the help of one command (for a mapped command,
with the parameters read from the running runtime's schema).`,
}
