package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// globalFlag is one global flag, for the man page and the shell
// completions (the top-level help writes the same flags as prose; a test
// keeps the two in step).
type globalFlag struct {
	Name    string // without dashes
	Short   string // one letter, or ""
	Arg     string // the value's name, or "" for a boolean
	Summary string
}

var globalFlags = []globalFlag{
	{Name: "socket", Arg: "path", Summary: "Talk to the runtime at this socket"},
	{Name: "instance", Arg: "id", Summary: `Talk to the live instance with this pid or label ("meith app list")`},
	{Name: "timeout", Arg: "ms", Summary: "Per-call timeout in milliseconds; progress restarts it (up to an hour)"},
	{Name: "json", Summary: "Print the raw ToolResult envelope (or raw JSON) instead of text"},
	{Name: "color", Summary: "Colour the text: --color=auto, always or never"},
	{Name: "quiet", Summary: `Print only results: no progress, diagnostics or "ok"`},
	{Name: "verbose", Short: "v", Summary: "Also print the tool's streamed log events"},
	{Name: "version", Short: "V", Summary: "Print the CLI version"},
	{Name: "help", Short: "h", Summary: `Show help; "meith <command> --help" reads the tool's live schema`},
	{Name: "stdin", Summary: `Read a JSON object of parameters from stdin (for "write", the file's content)`},
	{Name: "yes", Summary: `Confirm a destructive command ("rm")`},
	{Name: "arg-json", Arg: "json", Summary: "Merge a JSON object into the parameters"},
}

// appSubcommands are the words `meith app` takes (app.go).
var appSubcommands = []string{"list", "health", "logs", "kill", "bug-report", "screenshot", "help"}

// ShellNames are the shells [WriteCompletion] writes a script for.
var ShellNames = []string{"bash", "zsh", "fish"}

// UnknownShellError is returned by [WriteCompletion] for a shell it has no
// script for.
type UnknownShellError struct{ Shell string }

func (e *UnknownShellError) Error() string {
	return "no completion script for this shell; known shells: " + strings.Join(ShellNames, ", ")
}

// IsUnknownShell reports whether err is an [UnknownShellError].
func IsUnknownShell(err error) bool {
	_, ok := err.(*UnknownShellError)
	return ok
}

// topWords are the words the first argument completes to: the built-ins,
// "serve" and the first word of every mapped command, in help order, once.
func topWords() []completionWord {
	var out []completionWord
	seen := map[string]bool{}
	add := func(name, summary string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, completionWord{name, summary})
		}
	}
	for _, b := range builtins {
		if b.Name != "." {
			add(b.Name, b.Summary)
		}
	}
	add("serve", "Run the runtime headless (no window) until Ctrl+C")
	for _, c := range commandTable {
		if first, _, multi := strings.Cut(c.Name, " "); multi {
			add(first, strings.ToUpper(first[:1])+first[1:]+" commands: "+strings.Join(subcommandsOf(first), ", "))
			continue
		}
		add(c.Name, c.Summary)
	}
	return out
}

// completionWord is a word a shell offers, with its description.
type completionWord struct{ Word, Summary string }

// subcommandsOf returns the second words of the mapped commands that start
// with first ("checkpoint" → create, list, compare, restore).
func subcommandsOf(first string) []string {
	var out []string
	for _, c := range commandTable {
		if f, second, ok := strings.Cut(c.Name, " "); ok && f == first {
			out = append(out, second)
		}
	}
	return out
}

// secondWords maps a first word to the words its second argument completes
// to.
func secondWords() map[string][]string {
	m := map[string][]string{"app": appSubcommands, "agent": {"list"}}
	var names, tools []string
	for _, w := range topWords() {
		names = append(names, w.Word)
	}
	for _, c := range commandTable {
		if first, _, ok := strings.Cut(c.Name, " "); ok && m[first] == nil {
			m[first] = subcommandsOf(first)
		}
		if !slices.Contains(tools, c.Tool) {
			tools = append(tools, c.Tool)
		}
	}
	m["help"] = names
	m["call"] = tools
	return m
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// WriteCompletion writes the completion script of shell ("bash", "zsh" or
// "fish") for meith: commands, their subcommands, the tools of "call" and
// the global flags, from the command table. Other arguments complete to
// file names.
func WriteCompletion(w io.Writer, shell string) error {
	switch shell {
	case "bash":
		return writeBashCompletion(w)
	case "zsh":
		return writeZshCompletion(w)
	case "fish":
		return writeFishCompletion(w)
	}
	return &UnknownShellError{Shell: shell}
}

const generatedNote = "generated from meith's command table (backend/cli/docgen.go); do not edit"

func flagWords() []string {
	var out []string
	for _, f := range globalFlags {
		out = append(out, "--"+f.Name)
		if f.Short != "" {
			out = append(out, "-"+f.Short)
		}
	}
	return out
}

func writeBashCompletion(w io.Writer) error {
	var words []string
	for _, t := range topWords() {
		words = append(words, t.Word)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# bash completion for meith -*- shell-script -*-\n# %s\n\n", generatedNote)
	b.WriteString("_meith() {\n")
	b.WriteString("    local cur=${COMP_WORDS[COMP_CWORD]} i first=\"\" pos=0\n")
	fmt.Fprintf(&b, "    local flags=%q\n", strings.Join(flagWords(), " "))
	b.WriteString("    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n        return\n    fi\n")
	b.WriteString("    # The command is the first word that is not a flag (nor a flag's value).\n")
	b.WriteString("    for ((i = 1; i < COMP_CWORD; i++)); do\n")
	b.WriteString("        case ${COMP_WORDS[i]} in\n")
	b.WriteString("            --socket|--instance|--timeout|--arg-json) ((i++)) ;;\n")
	b.WriteString("            -*) ;;\n")
	b.WriteString("            *) [ -z \"$first\" ] && first=${COMP_WORDS[i]}; ((pos++)) ;;\n")
	b.WriteString("        esac\n    done\n")
	fmt.Fprintf(&b, "    if ((pos == 0)); then\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return\n    fi\n", strings.Join(words, " "))
	b.WriteString("    if ((pos == 1)); then\n        case $first in\n")
	second := secondWords()
	for _, k := range sortedKeys(second) {
		fmt.Fprintf(&b, "            %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", k, strings.Join(second[k], " "))
	}
	b.WriteString("        esac\n    fi\n")
	b.WriteString("    COMPREPLY=() # file names (complete -o default)\n}\n")
	b.WriteString("complete -o default -F _meith meith\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote quotes s for zsh inside single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZshCompletion(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#compdef meith\n# zsh completion for meith\n# %s\n\n", generatedNote)
	b.WriteString("_meith() {\n    local curcontext=$curcontext state line ret=1\n    local -a commands\n    commands=(\n")
	for _, t := range topWords() {
		fmt.Fprintf(&b, "        %s\n", zshQuote(strings.ReplaceAll(t.Word, ":", `\:`)+":"+t.Summary))
	}
	b.WriteString("    )\n    _arguments -C \\\n")
	bracket := strings.NewReplacer("[", `\[`, "]", `\]`)
	for _, f := range globalFlags {
		spec := "--" + f.Name
		if f.Short != "" {
			spec = "(-" + f.Short + " --" + f.Name + ")'{-" + f.Short + ",--" + f.Name + "}'"
		}
		arg := ""
		if f.Arg != "" {
			arg = ":" + f.Arg + ":"
			if f.Name == "socket" {
				arg += "_files"
			}
		}
		fmt.Fprintf(&b, "        '%s[%s]%s' \\\n", spec, strings.ReplaceAll(bracket.Replace(f.Summary), "'", `'\''`), arg)
	}
	b.WriteString("        '1: :->command' \\\n        '*:: :->args' && ret=0\n")
	b.WriteString("    case $state in\n        command)\n            _describe -t commands 'meith command' commands && ret=0 ;;\n")
	b.WriteString("        args)\n            if (( CURRENT == 2 )); then\n                case $words[1] in\n")
	second := secondWords()
	for _, k := range sortedKeys(second) {
		fmt.Fprintf(&b, "                    %s) compadd -- %s && ret=0; return ret ;;\n", k, strings.Join(second[k], " "))
	}
	b.WriteString("                esac\n            fi\n            _files && ret=0 ;;\n    esac\n    return ret\n}\n\n_meith \"$@\"\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote quotes s for fish inside single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFishCompletion(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# fish completion for meith\n# %s\n\n", generatedNote)
	for _, f := range globalFlags {
		line := "complete -c meith -l " + f.Name
		if f.Short != "" {
			line += " -s " + f.Short
		}
		if f.Arg != "" {
			line += " -r"
		}
		b.WriteString(line + " -d " + fishQuote(f.Summary) + "\n")
	}
	b.WriteString("\n")
	for _, t := range topWords() {
		fmt.Fprintf(&b, "complete -c meith -f -n __fish_use_subcommand -a %s -d %s\n", fishQuote(t.Word), fishQuote(t.Summary))
	}
	b.WriteString("\n")
	second := secondWords()
	for _, k := range sortedKeys(second) {
		// Only as the second word: the first word is k and nothing follows it yet.
		fmt.Fprintf(&b, "complete -c meith -f -n %s -a %s\n",
			fishQuote("__fish_seen_subcommand_from "+k+"; and test (count (commandline -opc)) -eq 2"), fishQuote(strings.Join(second[k], " ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// roffEscape escapes text for roff: backslashes, hyphens (as \-), and a
// leading dot or quote.
func roffEscape(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// WriteManPage writes the meith(1) man page in roff: the synopsis, the
// built-in commands, every mapped command by help section with its tool,
// the global flags, the environment, files and exit status — from the same
// tables as `meith help --all`. version and date (YYYY-MM-DD) go in the
// page's header.
func WriteManPage(w io.Writer, version, date string) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".\\\" %s\n", generatedNote)
	fmt.Fprintf(&b, ".TH MEITH 1 %q %q \"User Commands\"\n", date, "meith "+version)
	b.WriteString(".SH NAME\nmeith \\- desktop developer workbench: the app, its headless runtime and its command-line client\n")
	b.WriteString(".SH SYNOPSIS\n.B meith\n.br\n.B meith serve\n[\\fB\\-\\-grant\\-cli\\fR \\fIcaps\\fR] [\\fB\\-\\-label\\fR \\fIL\\fR]\n.br\n")
	b.WriteString(".B meith\n\\fIcommand\\fR [\\fIargs\\fR] [\\fB\\-\\-key\\fR \\fIvalue\\fR ...]\n.br\n")
	b.WriteString(".B meith call\n\\fItoolName\\fR [\\fB\\-\\-key\\fR \\fIvalue\\fR ...]\n")
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString("Without arguments, \\fBmeith\\fR starts the desktop app, or focuses the window of the meith that is already running.\n")
	b.WriteString("\\fBmeith serve\\fR runs the same runtime without a window.\n")
	b.WriteString("Every other command is the command-line client: it calls a tool of the running runtime over its socket and prints the result.\n")
	b.WriteString("Each feature of the app is such a tool, shared by the window, the CLI and agents.\n")
	b.WriteString("\\fBmeith tools\\fR lists them; \\fBmeith\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR shows a command's parameters from the running runtime's schema.\n")
	b.WriteString(".SH BUILT-IN COMMANDS\n")
	for _, c := range builtins {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffEscape(c.Usage), roffEscape(c.Summary))
	}
	b.WriteString(".TP\n.B serve [\\-\\-grant\\-cli caps] [\\-\\-label L]\nRun the runtime headless (no window) until Ctrl+C\n")
	b.WriteString(".SH COMMANDS\nEach command calls one runtime tool (in parentheses); \\fBmeith call\\fR \\fItool\\fR calls it by name.\n")
	for _, g := range groupOrder {
		fmt.Fprintf(&b, ".SS %s\n", roffEscape(g))
		for _, c := range commandTable {
			if c.Group != g {
				continue
			}
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR%s\n%s (\\fB%s\\fR)\n", roffEscape(c.Name), roffEscape(slotUsage(c.Slots)), roffEscape(c.Summary), roffEscape(c.Tool))
		}
	}
	b.WriteString(".SH OPTIONS\nGlobal flags, never sent to tools:\n")
	for _, f := range globalFlags {
		head := "\\fB\\-\\-" + roffEscape(f.Name) + "\\fR"
		if f.Short != "" {
			head = "\\fB\\-" + f.Short + "\\fR, " + head
		}
		if f.Arg != "" {
			head += " \\fI" + roffEscape(f.Arg) + "\\fR"
		}
		fmt.Fprintf(&b, ".TP\n%s\n%s\n", head, roffEscape(f.Summary))
	}
	b.WriteString(".TP\n\\fB\\-\\-\\fR\\fIkey\\fR\\fB\\-json\\fR \\fIjson\\fR\nSend one parameter as JSON, e.g. \\-\\-edits\\-json \\(aq[...]\\(aq\n")
	b.WriteString(".PP\nParameters are given as \\fB\\-\\-key value\\fR or \\fB\\-\\-key=value\\fR; a bare \\fB\\-\\-key\\fR is true, a repeated flag becomes an array, and positionals fill the command's slots.\n")
	b.WriteString(".SH ENVIRONMENT\n.TP\n.B MEITH_HOME\nmeith's home: config.json, live instance records, projects (default \\fI~/.meith\\fR).\n")
	b.WriteString(".TP\n.B MEITH_USER_DATA\nThe user data folder: state.json, settings, logs, agent sessions and the runtime's socket (default \\fI~/.config/meith\\fR).\n")
	b.WriteString(".TP\n.B NO_COLOR\nWhen set, \\fB\\-\\-color=auto\\fR prints no colour.\n")
	b.WriteString(".SH FILES\n.TP\n.I ~/.config/meith/state.json\nSpaces, tabs, projects and settings; an older file is migrated on first start.\n")
	b.WriteString(".TP\n.I ~/.config/meith/tool.sock\nThe default runtime socket.\n")
	b.WriteString(".SH EXIT STATUS\n0 success; 1 tool error, usage error or runtime unreachable; 128 not a git repository (status, diff); 130 interrupted.\n")
	b.WriteString(".SH SEE ALSO\n\\fBgit\\fR(1), \\fBchromium\\fR(1)\n")
	_, err := io.WriteString(w, b.String())
	return err
}
