package plugin

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// fakeTabs is a tab layer that records what it is asked.
type fakeTabs struct {
	mu      sync.Mutex
	revoked []string // "<id> <reason>"
	opened  []string // "<id> <space>"
}

func (f *fakeTabs) OpenTab(ctx context.Context, p Record, spaceID string) (state.BrowserTab, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, p.ID+" "+spaceID)
	return state.BrowserTab{ID: "btab_1", Mode: state.BrowserModePlugin, URL: "meith-plugin://" + p.ID + "/" + p.Entry}, nil
}

func (f *fakeTabs) Revoke(ctx context.Context, id string, why RevokeReason) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked = append(f.revoked, id+" "+string(why))
}

func (f *fakeTabs) takeRevoked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.revoked
	f.revoked = nil
	return r
}

type harness struct {
	svc   *Service
	store *state.Store
	tabs  *fakeTabs
	dir   string // <userData>/plugins
	data  string // user data
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	data := t.TempDir()
	store, err := state.Open(filepath.Join(data, "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := &harness{store: store, tabs: &fakeTabs{}, dir: filepath.Join(data, "plugins"), data: data}
	h.svc = New(Options{Store: store, Dir: h.dir})
	h.svc.SetTabs(h.tabs)
	return h
}

// pluginDir writes a plugin folder with manifest doc and an index.html.
func pluginDir(t *testing.T, doc string) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"plugin.json": doc, "index.html": "<p>hi</p>"})
	return dir
}

func grants(caps []protocol.Capability, apis ...string) Grants {
	return Grants{Capabilities: caps, APIs: apis}.Clone()
}

func caps(c ...protocol.Capability) []protocol.Capability { return c }

// TestGrantRules: install starts disabled with nothing approved; an
// approval never exceeds the request; enabling needs every requested API
// scope approved; only an enabled plugin has grants; disable, re-install
// and uninstall revoke its tabs.
func TestGrantRules(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	var changes []string
	h.svc.Subscribe(func(c Change) { changes = append(changes, c.PluginID+" "+c.Kind) })
	dir := pluginDir(t, demoManifest)
	res, err := h.svc.Install(ctx, Source{Directory: dir})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	p := res.Plugin
	if p.ID != "com.example.demo" || p.Enabled || len(p.Approved.Capabilities)+len(p.Approved.APIs) != 0 || res.Reinstalled ||
		p.Source.Kind != state.PluginSourceLocalDir || p.Source.Path != real || p.Root != real || p.Entry != "index.html" ||
		!slices.Equal(p.Requested.Capabilities, caps(protocol.CapReadOnly, protocol.CapWritesFiles)) || !slices.Equal(p.Requested.APIs, []string{"tools"}) {
		t.Fatalf("installed %+v", res)
	}
	if got, _ := h.svc.Get(p.ID); got.ID != p.ID || len(h.svc.List()) != 1 {
		t.Errorf("Get/List after install: %+v %+v", got, h.svc.List())
	}
	if _, ok := h.svc.Grants(p.ID); ok {
		t.Errorf("a disabled plugin has grants")
	}
	if _, ok := h.svc.Identity(p.ID); ok {
		t.Errorf("a disabled plugin has an identity")
	}

	// Enabling before the API scope is approved: the original's words.
	_, err = h.svc.SetEnabled(ctx, p.ID, true)
	if CodeOf(err) != CodePermissionDenied || err.Error() != "Cannot enable com.example.demo: unapproved API scopes [tools]" {
		t.Errorf("enable unapproved = %v", err)
	}
	// An approval beyond the request is cut to it.
	ar, err := h.svc.Approve(ctx, p.ID, grants(caps(protocol.CapWritesFiles, protocol.CapDestructive, protocol.CapControlsBrowser), "tools", "cdp", "ai"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ar.Plugin.Approved.Capabilities, caps(protocol.CapWritesFiles)) || !slices.Equal(ar.Plugin.Approved.APIs, []string{"tools"}) ||
		!slices.Equal(ar.Ignored.Capabilities, caps(protocol.CapDestructive, protocol.CapControlsBrowser)) || !slices.Equal(ar.Ignored.APIs, []string{"cdp", "ai"}) {
		t.Errorf("approve = %+v", ar)
	}
	if rec, err := h.svc.SetEnabled(ctx, p.ID, true); err != nil || !rec.Enabled {
		t.Fatalf("enable = %+v, %v", rec, err)
	}
	if got, ok := h.svc.Grants(p.ID); !ok || !slices.Equal(got, caps(protocol.CapWritesFiles)) {
		t.Errorf("Grants = %v %v, want [writes-files]", got, ok)
	}
	if id, ok := h.svc.Identity(p.ID); !ok || id.PluginID != p.ID || id.Name != "Demo" || id.Version != "1.0.0" ||
		!slices.Equal(id.APIs, []string{"tools"}) || !slices.Equal(id.Capabilities, caps(protocol.CapWritesFiles)) {
		t.Errorf("Identity = %+v %v", id, ok)
	}
	if _, ok := h.svc.Grants("com.example.other"); ok {
		t.Errorf("an unknown plugin has grants")
	}
	if r := h.tabs.takeRevoked(); len(r) != 0 {
		t.Errorf("revoked %v before any loss of authority", r)
	}

	// Approvals that change while it is enabled revoke its tabs; one that
	// drops a requested API scope disables it.
	if _, err := h.svc.Approve(ctx, p.ID, grants(caps(protocol.CapReadOnly, protocol.CapWritesFiles), "tools")); err != nil {
		t.Fatal(err)
	}
	if r := h.tabs.takeRevoked(); !slices.Equal(r, []string{"com.example.demo grants-changed"}) {
		t.Errorf("revoked %v after approvals changed", r)
	}
	ar, err = h.svc.Approve(ctx, p.ID, grants(caps(protocol.CapReadOnly)))
	if err != nil || !ar.Disabled || ar.Plugin.Enabled {
		t.Errorf("approve without the API = %+v, %v; want disabled", ar, err)
	}
	if r := h.tabs.takeRevoked(); !slices.Equal(r, []string{"com.example.demo disabled"}) {
		t.Errorf("revoked %v after the API was unapproved", r)
	}
	if _, ok := h.svc.Grants(p.ID); ok {
		t.Errorf("grants after the approval disabled it")
	}

	// Disable revokes.
	h.svc.Approve(ctx, p.ID, grants(caps(protocol.CapReadOnly, protocol.CapWritesFiles), "tools"))
	h.svc.SetEnabled(ctx, p.ID, true)
	h.tabs.takeRevoked()
	if rec, err := h.svc.SetEnabled(ctx, p.ID, false); err != nil || rec.Enabled {
		t.Fatalf("disable = %+v, %v", rec, err)
	}
	if r := h.tabs.takeRevoked(); !slices.Equal(r, []string{"com.example.demo disabled"}) {
		t.Errorf("revoked %v after disable", r)
	}
	if _, ok := h.svc.Grants(p.ID); ok {
		t.Errorf("a disabled plugin has grants")
	}

	// Re-install: the approvals still requested stay, enabled is reset,
	// its tabs are revoked.
	h.svc.SetEnabled(ctx, p.ID, true)
	h.tabs.takeRevoked()
	writeTree(t, dir, map[string]string{"plugin.json": `{"kind":"plugin","id":"com.example.demo","name":"Demo 2","version":"2.0.0",
		"permissions":["read-only","controls-browser"],"requestedApis":["tools","storage"]}`})
	res, err = h.svc.Install(ctx, Source{Directory: dir})
	if err != nil {
		t.Fatal(err)
	}
	p = res.Plugin
	if !res.Reinstalled || p.Enabled || p.Version != "2.0.0" || !slices.Equal(p.Approved.Capabilities, caps(protocol.CapReadOnly)) ||
		!slices.Equal(p.Approved.APIs, []string{"tools"}) || !slices.Equal(res.Dropped.Capabilities, caps(protocol.CapWritesFiles)) || len(h.svc.List()) != 1 {
		t.Errorf("re-install = %+v", res)
	}
	if r := h.tabs.takeRevoked(); !slices.Equal(r, []string{"com.example.demo reinstalled"}) {
		t.Errorf("revoked %v after re-install", r)
	}
	if _, ok := h.svc.Grants(p.ID); ok {
		t.Errorf("a re-installed plugin has grants before it is enabled again")
	}
	if _, err := h.svc.SetEnabled(ctx, p.ID, true); err == nil || !strings.Contains(err.Error(), "unapproved API scopes [storage]") {
		t.Errorf("enable with storage unapproved = %v", err)
	}

	// Uninstall revokes and forgets it; its folder stays.
	if err := h.svc.Uninstall(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if r := h.tabs.takeRevoked(); !slices.Equal(r, []string{"com.example.demo uninstalled"}) {
		t.Errorf("revoked %v after uninstall", r)
	}
	if _, ok := h.svc.Get(p.ID); ok || len(h.svc.List()) != 0 {
		t.Errorf("still installed after uninstall")
	}
	if _, err := os.Stat(filepath.Join(dir, "plugin.json")); err != nil {
		t.Errorf("uninstall touched the plugin's folder: %v", err)
	}
	for _, err := range []error{h.svc.Uninstall(ctx, p.ID), errOf(h.svc.SetEnabled(ctx, p.ID, false)), errOf(h.svc.Approve(ctx, p.ID, Grants{}))} {
		if CodeOf(err) != CodeNotFound || !strings.Contains(err.Error(), "is not installed") {
			t.Errorf("a call on an uninstalled plugin: %v, want NOT_FOUND", err)
		}
	}
	want := []string{"com.example.demo installed", "com.example.demo approved", "com.example.demo enabled", "com.example.demo approved",
		"com.example.demo approved", "com.example.demo disabled", "com.example.demo approved", "com.example.demo enabled",
		"com.example.demo disabled", "com.example.demo enabled", "com.example.demo reinstalled", "com.example.demo uninstalled"}
	if !slices.Equal(changes, want) {
		t.Errorf("changes\n%v\nwant\n%v", changes, want)
	}
	// The records are in state.json.
	if err := h.store.Flush(); err != nil {
		t.Fatal(err)
	}
}

func errOf[T any](_ T, err error) error { return err }

// TestOpenTab: only an installed, enabled plugin opens, through the tab
// layer; without one, ErrNoTabs.
func TestOpenTab(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.svc.OpenTab(ctx, "com.example.demo", ""); CodeOf(err) != CodeNotFound {
		t.Errorf("open an unknown plugin: %v", err)
	}
	h.svc.Install(ctx, Source{Directory: pluginDir(t, demoManifest)})
	if _, err := h.svc.OpenTab(ctx, "com.example.demo", ""); CodeOf(err) != CodeNotEnabled || !strings.Contains(err.Error(), "is not enabled") {
		t.Errorf("open a disabled plugin: %v", err)
	}
	h.svc.Approve(ctx, "com.example.demo", grants(nil, "tools"))
	h.svc.SetEnabled(ctx, "com.example.demo", true)
	tab, err := h.svc.OpenTab(ctx, "com.example.demo", "space_1")
	if err != nil || tab.Mode != state.BrowserModePlugin || !slices.Equal(h.tabs.opened, []string{"com.example.demo space_1"}) {
		t.Errorf("open = %+v, %v; opened %v", tab, err, h.tabs.opened)
	}
	h.svc.SetTabs(nil)
	if _, err := h.svc.OpenTab(ctx, "com.example.demo", ""); !errors.Is(err, ErrNoTabs) {
		t.Errorf("open without a tab layer: %v", err)
	}
}

// TestInstallArchive: an archive is extracted under <userData>/plugins/<id>
// (an npm-pack "package/" folder is its root), re-installing replaces it,
// uninstalling removes it, and a refused archive leaves nothing behind.
func TestInstallArchive(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	src := t.TempDir()
	archive := filepath.Join(src, "demo.tgz")
	os.WriteFile(archive, tarball(t, true, entry{name: "package/", typ: tar.TypeDir}, file("package/plugin.json", demoManifest),
		file("package/index.html", "v1"), file("package/old.js", "1")), 0o600)
	res, err := h.svc.Install(ctx, Source{Archive: archive})
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(h.dir, "com.example.demo")
	if res.Plugin.Root != final || res.Plugin.Source.Kind != state.PluginSourceArchive || res.Plugin.Source.Path != archive || EntryFile(res.Plugin) != filepath.Join(final, "index.html") {
		t.Errorf("installed %+v", res.Plugin)
	}
	if b, _ := os.ReadFile(filepath.Join(final, "index.html")); string(b) != "v1" {
		t.Errorf("index.html = %q", b)
	}
	// Re-install from a new archive replaces the files.
	os.WriteFile(archive, tarball(t, false, file("plugin.json", demoManifest), file("index.html", "v2")), 0o600)
	if _, err := h.svc.Install(ctx, Source{Archive: archive}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(final, "index.html")); string(b) != "v2" {
		t.Errorf("index.html after re-install = %q", b)
	}
	if _, err := os.Stat(filepath.Join(final, "old.js")); !os.IsNotExist(err) {
		t.Errorf("a file of the earlier install is left: %v", err)
	}
	onlyFinal := func(what string, want ...string) {
		t.Helper()
		ents, _ := os.ReadDir(h.dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: plugins folder holds %v, want %v", what, names, want)
		}
	}
	onlyFinal("after re-install", "com.example.demo")

	// Refused archives leave nothing, and keep the installed plugin.
	for name, data := range map[string][]byte{
		"zip-slip.tgz": tarball(t, true, file("plugin.json", demoManifest), file("../../evil", "x")),
		"symlink.tar":  tarball(t, false, file("plugin.json", demoManifest), entry{name: "index.html", typ: tar.TypeSymlink, linkname: "/etc/passwd"}),
		"no-entry.tgz": tarball(t, true, file("plugin.json", demoManifest)),
		"bad-id.tgz":   tarball(t, true, file("plugin.json", `{"kind":"plugin","id":"../x","name":"X"}`), file("index.html", "x")),
	} {
		p := filepath.Join(src, name)
		os.WriteFile(p, data, 0o600)
		if _, err := h.svc.Install(ctx, Source{Archive: p}); CodeOf(err) != CodeInvalid {
			t.Errorf("%s: %v, want INVALID", name, err)
		}
		onlyFinal(name, "com.example.demo")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(h.data), "evil")); err == nil {
		t.Errorf("zip-slip wrote outside")
	}
	for _, bad := range []Source{{Archive: filepath.Join(src, "x.zip")}, {Archive: "rel/x.tgz"}} {
		if _, err := h.svc.Install(ctx, bad); CodeOf(err) != CodeInvalid {
			t.Errorf("install %+v: %v, want INVALID", bad, err)
		}
	}
	if _, err := h.svc.Install(ctx, Source{Archive: filepath.Join(src, "missing.tgz")}); CodeOf(err) != CodeNotFound {
		t.Errorf("a missing archive: %v, want NOT_FOUND", err)
	}
	if p, _ := h.svc.Get("com.example.demo"); p.Root != final {
		t.Errorf("the installed plugin changed: %+v", p)
	}

	// A re-install from a folder drops the extracted copy; uninstalling an
	// archive plugin removes its folder.
	if _, err := h.svc.Install(ctx, Source{Directory: pluginDir(t, demoManifest)}); err != nil {
		t.Fatal(err)
	}
	onlyFinal("after a re-install from a folder")
	if _, err := h.svc.Install(ctx, Source{Archive: archive}); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.Uninstall(ctx, "com.example.demo"); err != nil {
		t.Fatal(err)
	}
	onlyFinal("after uninstall")
}

// TestInstallSources: exactly one source, and the dev-url source.
func TestInstallSources(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, src := range []Source{{}, {Directory: "/a", Archive: "/b.tgz"}, {Directory: "/a", DevURL: "http://x"}} {
		if _, err := h.svc.Install(ctx, src); CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "exactly one") {
			t.Errorf("Install(%+v) = %v", src, err)
		}
	}
	if _, err := h.svc.Install(ctx, Source{DevURL: "file:///etc/passwd"}); CodeOf(err) != CodeInvalid {
		t.Errorf("a file URL: %v", err)
	}
	for i := range state.MaxPlugins {
		err := h.store.Update(func(st *state.State) error {
			st.Plugins = append(st.Plugins, state.Plugin{ID: fmt.Sprintf("com.fill.p%d", i), Name: "P", Version: "1", Entry: "index.html",
				Source: state.PluginSource{Kind: state.PluginSourceLocalDir, Path: "/p"}, Root: "/p"})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.svc.Install(ctx, Source{Directory: pluginDir(t, demoManifest)}); CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "200 plugins") {
		t.Errorf("install beyond the bound: %v", err)
	}
}
