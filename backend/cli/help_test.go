package cli

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

var openTabDescriptor = protocol.ToolDescriptor{
	Name:        "open_browser_tab",
	Description: "Open a new browser tab pointing at a URL and focus it.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{
		"url":{"type":"string","description":"The URL to open."},
		"background":{"type":"boolean","description":"Do not focus the tab.","default":false},
		"wait":{"type":"string","enum":["none","load","idle"],"default":"load"},
		"timeoutMs":{"type":"integer","minimum":1,"maximum":60000},
		"headers":{"type":"object","description":"Extra request headers.\nSent with the first request."},
		"tags":{"type":"array","items":{"type":"string"}},
		"retries":{"type":["integer","null"]},
		"blob":{}
	},"required":["url"]}`),
	Capabilities: []protocol.Capability{protocol.CapControlsBrowser, protocol.CapAccessesNetwork},
}

const openTabParams = `
Open a new browser tab pointing at a URL and focus it.

Parameters:
  --url <string> (required)
      The URL to open.
  --background <boolean>
      Do not focus the tab.
      default: false
  --wait <string>
      one of: none, load, idle; default: load
  --timeoutMs <integer>
      range: 1..60000
  --headers <object>
      Extra request headers.
      Sent with the first request.
      pass JSON: --headers-json '<json>'
  --tags <string[]>
  --retries <integer>
  --blob <json>

Capabilities: controls-browser, accesses-network
`

func TestCommandHelpFromDescriptor(t *testing.T) {
	open, _ := lookupCommand("open")
	var b strings.Builder
	writeCommandHelp(&b, open, &openTabDescriptor, nil)
	want := "meith open — Open a new browser tab at <url>\n\n" +
		"Usage:\n  meith open <url> [--key value ...]\n\n" +
		"Runtime tool: open_browser_tab\n" + openTabParams
	if b.String() != want {
		t.Errorf("command help =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestCommandHelpOffline(t *testing.T) {
	nav, _ := lookupCommand("navigate")
	var b strings.Builder
	writeCommandHelp(&b, nav, nil, errors.New("Could not connect"))
	want := "meith navigate — Navigate <tabId> to <url>\n\n" +
		"Usage:\n  meith navigate <tabId> <url> [--key value ...]\n\n" +
		"Runtime tool: navigate\n\n(Start the app to see this tool's parameters.)\n"
	if b.String() != want {
		t.Errorf("offline help =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestCommandHelpToolMissing(t *testing.T) {
	tabs, _ := lookupCommand("tabs")
	var b strings.Builder
	writeCommandHelp(&b, tabs, nil, nil)
	if !strings.Contains(b.String(), `(The running runtime has no "get_tabs" tool;`) {
		t.Errorf("help without the tool:\n%s", b.String())
	}
}

func TestToolHelp(t *testing.T) {
	var b strings.Builder
	writeToolHelp(&b, openTabDescriptor)
	want := "meith call open_browser_tab\n\n" +
		"Usage:\n  meith call open_browser_tab [--key value ...]\n  meith open <url> [--key value ...]\n" + openTabParams
	if b.String() != want {
		t.Errorf("tool help =\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	writeToolHelp(&b, protocol.ToolDescriptor{Name: "x_y", Description: "D.", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if want := "meith call x_y\n\nUsage:\n  meith call x_y [--key value ...]\n\nD.\n\nParameters: none\n"; b.String() != want {
		t.Errorf("tool help without params =\n%q\nwant\n%q", b.String(), want)
	}
}

func TestTopHelpListsEverything(t *testing.T) {
	var b strings.Builder
	writeTopHelp(&b)
	help := b.String()
	for _, c := range commandTable {
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.Name) + ` +` + regexp.QuoteMeta(c.Tool) + ` +` + regexp.QuoteMeta(c.Summary) + `$`)
		if !re.MatchString(help) {
			t.Errorf("top-level help lacks the line for %q → %s", c.Name, c.Tool)
		}
	}
	for _, bi := range builtins {
		if !strings.Contains(help, "  "+bi.Usage+" ") {
			t.Errorf("top-level help lacks built-in %q", bi.Usage)
		}
	}
	for _, s := range []string{"meith serve [--grant-cli caps] [--label L]", "--socket <path>", "--instance <id>",
		"--timeout <ms>", "--json", "--quiet", "-v, --verbose", "-V, --version", "-h, --help", "--stdin",
		"--arg-json <json>", "--<key>-json <json>", "Exit status"} {
		if !strings.Contains(help, s) {
			t.Errorf("top-level help lacks %q", s)
		}
	}
	for _, g := range groupOrder {
		if !strings.Contains(help, "\n"+g+":\n") {
			t.Errorf("top-level help lacks section %q", g)
		}
	}
}
