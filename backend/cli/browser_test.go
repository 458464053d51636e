package cli

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestBrowserCommands runs the mapped browser commands (open, tabs,
// browser-state, click, screenshot) against a real runtime and a real
// Chromium, on a page served on 127.0.0.1.
func TestBrowserCommands(t *testing.T) {
	found := os.Getenv("MEITH_CHROME") != ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if _, err := exec.LookPath(name); err == nil {
			found = true
		}
	}
	if !found {
		t.Skip("no Chromium found (install chromium or set MEITH_CHROME)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>CLI page</title>`+
			`<button onclick="document.title='clicked'">Press</button>`)
	}))
	defer srv.Close()
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapControlsBrowser))

	cli := socketCLI{t: t, socket: inst.SocketPath}
	run, decode := cli.run, cli.decode

	var tab struct {
		ID, URL, Title string
		Active         bool
	}
	decode("open", run("open", srv.URL+"/page"), &tab)
	if !strings.HasPrefix(tab.ID, "btab_") || tab.URL != srv.URL+"/page" || tab.Title != "CLI page" || !tab.Active {
		t.Errorf("open printed %+v", tab)
	}

	var list struct {
		Content struct {
			BrowserTabs []struct{ ID string } `json:"browserTabs"`
		} `json:"content"`
	}
	decode("tabs --json", run("tabs", "--json"), &list)
	if len(list.Content.BrowserTabs) != 1 || list.Content.BrowserTabs[0].ID != tab.ID {
		t.Errorf("tabs --json printed %+v, want %s", list, tab.ID)
	}
	// Without --json, a table with the active tab marked.
	if text := run("tabs"); !strings.Contains(text, "\n*  "+tab.ID+"  ") || !strings.Contains(text, "  CLI page  "+srv.URL+"/page\n") {
		t.Errorf("tabs printed %q, want a table row for %s", text, tab.ID)
	}

	var page struct {
		TabID    string `json:"tabId"`
		Elements []struct{ ID, Tag, Text string }
	}
	decode("browser-state", run("browser-state", tab.ID), &page)
	button := ""
	for _, el := range page.Elements {
		if el.Tag == "button" {
			button = el.ID
		}
	}
	if page.TabID != tab.ID || button == "" {
		t.Fatalf("browser-state printed %+v", page)
	}
	var clicked struct{ Clicked string }
	decode("click", run("click", tab.ID, button), &clicked)
	if clicked.Clicked != button {
		t.Errorf("click printed %+v", clicked)
	}

	out := run("screenshot", tab.ID)
	path := strings.TrimSuffix(out, "\n")
	if strings.Contains(path, "\n") || !filepath.IsAbs(path) || filepath.Ext(path) != ".png" {
		t.Fatalf("screenshot printed %q, want only the PNG's path", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("%s is not a PNG: %v", path, err)
	}
	if !strings.HasPrefix(path, filepath.Join(inst.UserData, "artifacts", "screenshots")+string(filepath.Separator)) {
		t.Errorf("screenshot at %s, want it under the user data's artifacts/screenshots", path)
	}
}
