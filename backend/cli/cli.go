// Package cli is the meith command-line client: it parses a command line,
// finds the target runtime (--socket, --instance, the newest live instance,
// config.json, the default socket), calls tools over the NDJSON socket and
// renders their events and results. status, diff, log, blame, tabs and
// spaces render as text for people (git's formats, tables; colour per
// --color and NO_COLOR); --json prints any result as the envelope.
//
// The executable's main is thin: it dispatches "serve" to the runtime and
// everything else to [Main]. Main never calls os.Exit and writes only to the
// given [Streams], so tests drive it in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// helpTimeout bounds the live-schema lookups of help (unless --timeout).
const helpTimeout = 3 * time.Second

// Streams are the standard streams of one CLI run.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// System returns the process's stdin, stdout and stderr.
func System() *Streams { return &Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// conn is the part of *client.Client the CLI uses (tests substitute fakes).
type conn interface {
	ListTools(ctx context.Context) ([]protocol.ToolDescriptor, error)
	Call(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error)
	Close() error
}

// dialer connects to a runtime socket.
type dialer func(ctx context.Context, path string) (conn, error)

func dialClient(ctx context.Context, path string) (conn, error) {
	c, err := client.Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Main runs one CLI invocation; args exclude the program name. It returns
// the exit code: 0 on success, 1 on any failure (a tool error, a usage
// error, an unreachable runtime), 130 when ctx is cancelled (Ctrl+C) during
// a call — the call is then cancelled on the runtime too. A nil s means
// [System].
func Main(ctx context.Context, args []string, s *Streams) int {
	if s == nil {
		s = System()
	}
	return (&runner{s: s, dial: dialClient}).run(ctx, args)
}

// runner is the state of one invocation.
type runner struct {
	s    *Streams
	dial dialer
	a    *Args
	p    *printer

	socket   string // --socket
	instance string // --instance
	timeout  time.Duration

	target    *Target
	targetErr error

	// color says human output is coloured (--color, NO_COLOR, a terminal).
	color bool
}

// reserved are the global flags; they are never forwarded as tool params.
var reserved = map[string]bool{
	"socket": true, "instance": true, "timeout": true, "json": true, "quiet": true,
	"verbose": true, "v": true, "version": true, "V": true, "help": true, "h": true,
	"stdin": true, "yes": true, "color": true,
}

func isReserved(name string) bool { return reserved[name] }

func (r *runner) run(ctx context.Context, argv []string) int {
	r.a = Parse(argv, globalBooleans)
	if len(r.a.Positionals) > 0 {
		if _, human := humanCommands[r.a.Positionals[0]]; human {
			r.a = Parse(argv, booleansFor(r.a.Positionals[0])) // its own flags take no value
		} else if r.a.Positionals[0] == "audit" {
			r.a = Parse(argv, withBooleans(auditBooleans))
		}
	}
	a := r.a
	r.p = &printer{out: r.s.Out, err: r.s.Err, json: a.Bool("json"), quiet: a.Bool("quiet"), verbose: a.Bool("verbose", "v")}

	if a.Bool("version", "V") {
		r.p.stdout("%s", buildinfo.Version)
		return exitOK
	}
	for _, name := range []string{"socket", "instance"} {
		v, present, bare := a.Value(name)
		if present && (bare || v == "") {
			what := "a path"
			if name == "instance" {
				what = "a pid or label"
			}
			return r.p.usage("--%s needs %s.", name, what)
		}
		if name == "socket" {
			r.socket = v
		} else {
			r.instance = v
		}
	}
	mode, err := colorMode(a)
	if err != nil {
		return r.p.usage("%s", err)
	}
	r.color = useColor(mode, os.Getenv("NO_COLOR"), os.Getenv("TERM"), isTerminal(r.s.Out))
	if v, present, bare := a.Value("timeout"); present {
		ms, err := strconv.ParseInt(v, 10, 64)
		if bare || err != nil || ms <= 0 {
			return r.p.usage("--timeout must be a positive integer (milliseconds).")
		}
		r.timeout = time.Duration(ms) * time.Millisecond
	}

	cmd, rest := "", a.Positionals
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	wantsHelp := a.Bool("help", "h")
	if cmd == "help" {
		if len(rest) == 0 {
			r.topHelp(ctx)
			return exitOK
		}
		cmd, rest, wantsHelp = rest[0], rest[1:], true
	}
	if wantsHelp {
		return r.help(ctx, cmd, rest)
	}

	switch cmd {
	case "":
		r.topHelp(ctx)
		return exitOK
	case "tools":
		return r.tools(ctx, rest)
	case "call":
		return r.call(ctx, rest)
	case "ping":
		return r.ping(ctx, rest)
	case "app":
		return r.app(ctx, rest)
	case "devlogs":
		return r.devlogs(ctx, rest)
	case "audit":
		return r.auditCmd(ctx, rest)
	case "agent":
		return r.agentCmd(ctx, rest)
	case "new":
		return r.newProject(ctx, rest)
	case "setup":
		return r.setup(rest)
	case "serve":
		return r.p.usage(`"serve" runs the runtime; it is handled by the meith executable, not by the CLI library.`)
	}
	// Two-word commands ("checkpoint create") first.
	spec, ok := Command{}, false
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if spec, ok = lookupCommand(cmd + " " + rest[0]); ok {
			rest = rest[1:]
		}
	}
	if !ok {
		spec, ok = lookupCommand(cmd)
	}
	if !ok {
		if dir := folderArg(cmd); dir != "" {
			return r.openFolder(ctx, dir, rest) // meith . / meith <dir>
		}
		if looksLikePath(cmd) {
			return r.p.usage("That folder does not exist: \"meith <folder>\" opens an existing folder as a project.")
		}
		return r.unknownCommand(cmd)
	}
	var params Params
	var code int
	human, isHuman := humanCommands[spec.Name]
	if spec.StdinText != "" && r.a.Bool("stdin") {
		params, code = r.stdinTextParams(rest, spec)
	} else {
		o := BuildOptions{Slots: spec.Slots, ArrayKeys: spec.ArrayKeys, Command: `"` + spec.Name + `"`}
		if isHuman {
			o.Reserved = func(name string) bool { return isReserved(name) || slices.Contains(human.flags, name) }
		}
		params, code = r.params(rest, o)
	}
	if params == nil {
		return code
	}
	if isHuman && human.prepare != nil {
		human.prepare(r, params)
	}
	if _, given := params[spec.StdinText]; spec.StdinText != "" && !given {
		return r.p.usage("%q needs the %s: as an argument, or on standard input with --stdin.", spec.Name, spec.StdinText)
	}
	if _, given := params[spec.Confirm]; spec.Confirm != "" && !given {
		if !r.a.Bool("yes") {
			return r.unconfirmed(spec, params)
		}
		params[spec.Confirm] = true
	}
	if isHuman && !r.p.json {
		return r.invokeHuman(ctx, spec.Tool, params, human)
	}
	var render renderer
	switch {
	case spec.PrintPath:
		render = renderPath
	case spec.PrintContent:
		render = r.renderFileContent
	}
	return r.invoke(ctx, spec.Tool, params, render)
}

// unknownCommand reports cmd with a suggestion when one is close.
func (r *runner) unknownCommand(cmd string) int {
	r.p.stderr("error: Unknown command %q. Run \"meith --help\".", cmd)
	if hint := suggestCommand(cmd); hint != "" {
		r.p.stderr("%s", hint)
	}
	return exitFailure
}

// suggestCommand proposes a close command name, or the mapped command /
// "meith call" for a tool name.
func suggestCommand(cmd string) string {
	if c, ok := commandForTool(cmd); ok {
		return fmt.Sprintf("Did you mean \"meith %s\" (or \"meith call %s\")?", c.Name, cmd)
	}
	if strings.Contains(cmd, "_") {
		return fmt.Sprintf("To call a tool by name: meith call %s", cmd)
	}
	var names []string
	for _, b := range builtins {
		names = append(names, b.Name)
	}
	for _, c := range commandTable {
		names = append(names, c.Name)
	}
	if best := closest(cmd, names); best != "" {
		return fmt.Sprintf("Did you mean %q?", best)
	}
	return ""
}

// closest returns the candidate within edit distance 2 of s (or the only
// one s is a prefix of), preferring the nearest, then the one sharing the
// longest prefix with s, then the first; "" if none (or s is too long to
// be a mistyped command).
func closest(s string, candidates []string) string {
	if len(s) > maxSuggestLen {
		return ""
	}
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(s, c)
		if d < bestD || d == bestD && best != "" && commonPrefix(s, c) > commonPrefix(s, best) {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	var prefixed []string
	for _, c := range candidates {
		if len(s) >= 3 && strings.HasPrefix(c, s) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// maxSuggestLen bounds the words closest compares (its cost is quadratic).
const maxSuggestLen = 64

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the optimal-string-alignment distance of a and b: the
// fewest insertions, deletions, substitutions and swaps of two adjacent
// bytes ("stauts" is one swap from "status").
func editDistance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}

// resolve returns the target runtime, resolving it once.
func (r *runner) resolve() (Target, error) {
	if r.target == nil && r.targetErr == nil {
		t, err := ResolveTarget(r.socket, r.instance)
		if err != nil {
			r.targetErr = err
		} else {
			r.target = &t
		}
	}
	if r.targetErr != nil {
		return Target{}, r.targetErr
	}
	return *r.target, nil
}

// connect resolves the target and dials it. On failure it prints the error
// and returns a nil conn and the exit code.
func (r *runner) connect(ctx context.Context) (conn, Target, int) {
	t, err := r.resolve()
	if err != nil {
		return nil, t, r.p.usage("%s", err)
	}
	c, err := r.dial(ctx, t.SocketPath)
	if err != nil {
		if ctx.Err() != nil {
			return nil, t, exitInterrupted
		}
		return nil, t, r.p.fail(t.SocketPath, err)
	}
	return c, t, exitOK
}

// params builds the tool arguments of a command (with --stdin). On failure
// it prints the error and returns nil and the exit code.
func (r *runner) params(positionals []string, o BuildOptions) (Params, int) {
	if o.Reserved == nil {
		o.Reserved = isReserved
	}
	if r.a.Bool("stdin") {
		base, err := r.readStdin()
		if err != nil {
			return nil, r.p.usage("%s", err)
		}
		o.Base = base
	}
	p, err := BuildParams(r.a, positionals, o)
	if err != nil {
		return nil, r.p.usage("%s", err)
	}
	return p, exitOK
}

// readStdin reads the --stdin parameters object. Empty input is {}.
func (r *runner) readStdin() (map[string]json.RawMessage, error) {
	if r.s.In == nil {
		return nil, errors.New("--stdin: no standard input")
	}
	b, err := io.ReadAll(r.s.In)
	if err != nil {
		return nil, fmt.Errorf("--stdin: %v", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return map[string]json.RawMessage{}, nil
	}
	m, err := decodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("--stdin must be a JSON object: %v", err)
	}
	return m, nil
}

// clientInfo is the caller context of every call.
func clientInfo() protocol.ClientInfo {
	cwd, _ := os.Getwd()
	return protocol.ClientInfo{Caller: protocol.CallerCLI, Cwd: cwd}
}

// needsSchema reports whether some value came from command-line words (so
// the tool's schema can type it).
func (p Params) needsSchema() bool {
	for _, v := range p {
		if _, raw := v.(json.RawMessage); !raw {
			return true
		}
	}
	return false
}

// invoke calls tool with params on the target runtime and renders the
// outcome; it returns the exit code.
func (r *runner) invoke(ctx context.Context, tool string, params Params, render renderer) int {
	return r.invokeWith(ctx, tool, params, render, nil)
}

// invokeHuman is invoke for a command with a text rendering of its own.
func (r *runner) invokeHuman(ctx context.Context, tool string, params Params, h humanCommand) int {
	return r.invokeWith(ctx, tool, params, nil, &h)
}

// invokeWith calls tool and renders a successful result with human when
// it is set (falling back to the default rendering when human cannot read
// the content), else with render.
func (r *runner) invokeWith(ctx context.Context, tool string, params Params, render renderer, human *humanCommand) int {
	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()

	var schema json.RawMessage
	if params.needsSchema() {
		if list, err := c.ListTools(ctx); err == nil {
			if d := findTool(list, tool); d != nil {
				schema = d.InputSchema
			}
		}
	}
	args, err := params.JSON(schema)
	if err != nil {
		return r.p.usage("encode parameters: %v", err)
	}
	res, err := c.Call(ctx, tool, args, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout, OnEvent: r.p.event})
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return r.p.fail(t.SocketPath, err)
	}
	if human != nil && res.OK && !r.p.json {
		r.p.diagnostics(res.Diagnostics)
		code = human.render(r, params, res.Content)
		if code < 0 {
			r.p.content(res.Content)
			code = exitOK
		}
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return code
	}
	code = r.p.result(res, render)
	if !res.OK && res.Error != nil && res.Error.Code == protocol.CodeUnknownTool && !r.p.json {
		// The runtime's own suggestion: no second round trip for the list.
		if d, ok := res.Error.Details.(map[string]any); ok {
			if best, ok := d["suggestion"].(string); ok && best != "" {
				r.p.stderr("Did you mean %q? Run \"meith tools\" to list the runtime's tools.", best)
			}
		}
	}
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return code
}

func findTool(tools []protocol.ToolDescriptor, name string) *protocol.ToolDescriptor {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// call is `meith call <tool> [--key value ...]`.
func (r *runner) call(ctx context.Context, rest []string) int {
	if len(rest) == 0 {
		r.p.stderr("Usage: meith call <toolName> [--key value ...]")
		return exitFailure
	}
	tool := rest[0]
	params, code := r.params(rest[1:], BuildOptions{Command: "meith call " + tool})
	if params == nil {
		return code
	}
	return r.invoke(ctx, tool, params, nil)
}

// tools is `meith tools [filter]`.
func (r *runner) tools(ctx context.Context, rest []string) int {
	if len(rest) > 1 {
		return r.p.usage("tools takes at most one filter word (got %q).", rest[1])
	}
	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	list, err := c.ListTools(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return r.p.fail(t.SocketPath, err)
	}
	if len(rest) == 1 {
		f := strings.ToLower(rest[0])
		var kept []protocol.ToolDescriptor
		for _, d := range list {
			if strings.Contains(strings.ToLower(d.Name), f) || strings.Contains(strings.ToLower(d.Description), f) {
				kept = append(kept, d)
			}
		}
		list = kept
	}
	if r.p.json {
		if list == nil {
			list = []protocol.ToolDescriptor{}
		}
		r.p.jsonValue(list)
		return exitOK
	}
	for _, d := range list {
		caps := ""
		if len(d.Capabilities) > 0 {
			caps = "  [" + protocol.JoinCapabilities(d.Capabilities, ", ") + "]"
		}
		r.p.stdout("%s%s\n    %s", d.Name, caps, d.Description)
	}
	if len(list) == 0 && !r.p.quiet {
		r.p.stderr("No tools match.")
	}
	return exitOK
}

// devlogs is `meith devlogs [--id ID | --cwd DIR] [--no-replay]`: it
// follows attach_process_logs until Ctrl+C, printing each log line.
func (r *runner) devlogs(ctx context.Context, rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("devlogs takes no positional arguments (got %q).", rest[0])
	}
	id, _, _ := r.a.Value("id")
	cwd, _, _ := r.a.Value("cwd")
	if id == "" && cwd == "" {
		cwd, _ = os.Getwd()
	}
	replay := !r.a.Bool("no-replay")
	if v, present, bare := r.a.Value("replay"); present && !bare && strings.EqualFold(v, "false") {
		replay = false
	}
	args := map[string]any{"replay": replay}
	what := "cwd " + cwd
	if id != "" {
		args["devServerId"] = id
		what = "id " + id
	}
	if cwd != "" {
		args["cwd"] = cwd
	}
	raw, _ := json.Marshal(args)

	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	if !r.p.quiet {
		r.p.stderr("attaching to dev server logs (%s)… Ctrl+C to stop", what)
	}
	onEvent := func(ev protocol.Event) {
		if ev.Kind != protocol.EventLog {
			return
		}
		if r.p.json {
			b, _ := json.Marshal(ev)
			r.p.stdout("%s", unescapeHTML(b))
			return
		}
		r.p.stdout("%s", ev.Message)
	}
	res, err := c.Call(ctx, "attach_process_logs", raw, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout, OnEvent: onEvent})
	if ctx.Err() != nil {
		return exitOK // Ctrl+C is how a follow ends
	}
	if err != nil {
		return r.p.fail(t.SocketPath, err)
	}
	if !res.OK {
		r.p.toolError(res.Error)
		return exitFailure
	}
	return exitOK
}
