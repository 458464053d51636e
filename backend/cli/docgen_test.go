package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestGlobalFlagsMatchHelp: the flags the man page and completions offer
// are the flags the top-level help documents.
func TestGlobalFlagsMatchHelp(t *testing.T) {
	var b strings.Builder
	writeTopHelp(&b)
	_, section, ok := strings.Cut(b.String(), "Global flags (never sent to tools):\n")
	if !ok {
		t.Fatal("the top-level help has no global flags section")
	}
	section, _, _ = strings.Cut(section, "\n\n")
	var inHelp []string
	for _, m := range regexp.MustCompile(`(?m)^  (?:-\w, )?--([a-z-]+)[ [=]`).FindAllStringSubmatch(section, -1) {
		inHelp = append(inHelp, m[1])
	}
	var inTable []string
	for _, f := range globalFlags {
		inTable = append(inTable, f.Name)
	}
	slices.Sort(inHelp)
	slices.Sort(inTable)
	if !slices.Equal(inHelp, inTable) {
		t.Errorf("global flags: help documents %v, the table has %v", inHelp, inTable)
	}
}

// TestManPageListsEveryCommand: meith(1) names every built-in and mapped
// command with its tool, and groff reads it without a warning.
func TestManPageListsEveryCommand(t *testing.T) {
	var b bytes.Buffer
	if err := WriteManPage(&b, "1.2.3+4.gabc", "2026-12-02"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `.TH MEITH 1 "2026-12-02" "meith 1.2.3+4.gabc"`) {
		t.Errorf("header missing or wrong:\n%.300s", page)
	}
	for _, c := range commandTable {
		for _, want := range []string{roffEscape(c.Name), roffEscape(c.Tool)} {
			if !strings.Contains(page, `\fB`+want+`\fR`) {
				t.Errorf("the man page lacks %q (command %q)", want, c.Name)
			}
		}
	}
	for _, c := range builtins {
		if !strings.Contains(page, ".B "+roffEscape(c.Usage)+"\n") {
			t.Errorf("the man page lacks the built-in %q", c.Usage)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed: the page's syntax is not checked")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("groff -man -ww: %v\n%s", err, stderr.String())
	}
}

// TestBashCompletion sources the bash script in a real bash and asks it to
// complete command lines.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "meith")
	var b bytes.Buffer
	if err := WriteCompletion(&b, "bash"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		words []string // the last one is being completed
		want  string   // COMPREPLY, space-joined
	}{
		{[]string{"meith", "checkp"}, "checkpoint"},
		{[]string{"meith", "open-pr"}, "open-project"},
		{[]string{"meith", "checkpoint", ""}, "create list compare restore"},
		{[]string{"meith", "--json", "app", "he"}, "health help"},
		{[]string{"meith", "--socket", "/tmp/s", "agent", "l"}, "list"},
		{[]string{"meith", "help", "bug"}, "bug-report"},
		{[]string{"meith", "call", "app_h"}, "app_health"},
		{[]string{"meith", "--ti"}, "--timeout"},
		{[]string{"meith", "read", "x", ""}, ""},
	}
	for _, tt := range tests {
		quoted := make([]string, len(tt.words))
		for i, w := range tt.words {
			quoted[i] = "'" + w + "'"
		}
		prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(tt.words)-1) + "\n_meith\necho \"${COMPREPLY[*]}\"\ncomplete -p meith\n"
		out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: bash: %v\n%s", tt.words, err, out)
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) != 2 || lines[0] != tt.want || lines[1] != "complete -o default -F _meith meith" {
			t.Errorf("complete %v: got %q, want %q and the complete line", tt.words, lines, tt.want)
		}
	}
}

// TestCompletionScriptsParse: every script names every command, the shell
// reads it without a syntax error (when installed), and an unknown shell
// is a typed error.
func TestCompletionScriptsParse(t *testing.T) {
	if err := WriteCompletion(&bytes.Buffer{}, "tcsh"); !IsUnknownShell(err) {
		t.Errorf("WriteCompletion(tcsh) = %v, want an UnknownShellError", err)
	}
	for _, shell := range ShellNames {
		t.Run(shell, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteCompletion(&b, shell); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range commandTable {
				if first, _, _ := strings.Cut(cmd.Name, " "); !strings.Contains(b.String(), first) {
					t.Errorf("the %s script lacks %q", shell, first)
				}
			}
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed: syntax not checked", shell)
			}
			file := filepath.Join(t.TempDir(), "meith."+shell)
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "-n", file).CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}
