package cli

import (
	"regexp"
	"testing"
)

var (
	snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	// A command is one kebab-case word, or two ("checkpoint create").
	kebabCase = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*( [a-z][a-z0-9]*(-[a-z0-9]+)*)?$`)
	// A parameter is camelCase; a last slot may end in "..." (variadic).
	paramName = regexp.MustCompile(`^[a-z][A-Za-z0-9]*(\.\.\.)?$`)
)

func TestCommandTable(t *testing.T) {
	groups := map[string]bool{}
	for _, g := range groupOrder {
		groups[g] = true
	}
	seen := map[string]bool{}
	for _, b := range builtins {
		seen[b.Name] = true
	}
	seen["serve"] = true
	for _, c := range Commands() {
		if !kebabCase.MatchString(c.Name) {
			t.Errorf("command %q is not kebab-case", c.Name)
		}
		if seen[c.Name] {
			t.Errorf("command %q is defined twice (or shadows a built-in)", c.Name)
		}
		seen[c.Name] = true
		if !snakeCase.MatchString(c.Tool) {
			t.Errorf("command %q maps to %q, which is not a snake_case tool name", c.Name, c.Tool)
		}
		if c.Summary == "" || !groups[c.Group] {
			t.Errorf("command %q: summary %q, group %q", c.Name, c.Summary, c.Group)
		}
		slots := map[string]bool{}
		for _, s := range append(append([]string{}, c.Slots...), c.ArrayKeys...) {
			if !paramName.MatchString(s) {
				t.Errorf("command %q: parameter %q is not a camelCase name", c.Name, s)
			}
		}
		for _, s := range c.Slots {
			if slots[s] {
				t.Errorf("command %q: slot %q twice", c.Name, s)
			}
			slots[s] = true
		}
	}
	// The whole original table (reference §5.4) is here, plus the git
	// commands of the git issue, the path commands of the files issue
	// (mv, rm, mkdir) and the two project commands of the projects issue
	// (setup-detect, retry-project), and the four storage maintenance
	// commands of the storage issue (storage-bundle, storage-clear,
	// storage-screenshots, storage-prune), and show of the git panel issue
	// (21).
	if n := len(Commands()); n != 81+13+3+2+4+1 {
		t.Errorf("the table has %d commands, want the original's 81, 13 git commands, 3 path commands, 2 project commands, 4 storage commands and show", n)
	}
}

func TestCommandsReturnsACopy(t *testing.T) {
	c := Commands()
	c[0].Tool = "changed"
	if commandTable[0].Tool == "changed" {
		t.Error("Commands() exposes the table")
	}
}
