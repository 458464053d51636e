package template

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func newBuffer(t *testing.T, root string, opts BufferOptions) *Buffer {
	t.Helper()
	b, err := NewBuffer(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// waitReady waits, up to a generous deadline, until b has want ready
// projects: refills run in the background.
func waitReady(t *testing.T, b *Buffer, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for b.Status().Ready != want {
		if time.Now().After(deadline) {
			t.Fatalf("the buffer has %d ready projects, want %d", b.Status().Ready, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBufferFillAllocateRefill(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects")
	b := newBuffer(t, root, BufferOptions{})
	ctx := context.Background()
	if got := b.Status(); got != (BufferStatus{Ready: 0, Target: 0, Dir: filepath.Join(root, ".prewarm")}) {
		t.Fatalf("Status = %+v", got)
	}
	ready, err := b.Fill(ctx, 2)
	if err != nil || ready != 2 {
		t.Fatalf("Fill = %d, %v", ready, err)
	}
	if got := b.Status(); got.Ready != 2 || got.Target != 2 {
		t.Fatalf("Status = %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Join(root, PrewarmDir))
	for _, e := range entries {
		var pkg packageJSON
		readJSON(t, filepath.Join(root, PrewarmDir, e.Name(), "package.json"), &pkg)
		if !strings.HasPrefix(e.Name(), "app-basic-") || pkg.Name != "meith-app" {
			t.Errorf("ready project %s: package.json name %q", e.Name(), pkg.Name)
		}
	}

	dir, fromBuffer, err := b.Allocate(ctx, "Weekend Project")
	if err != nil || !fromBuffer || dir != filepath.Join(root, "weekend-project") {
		t.Fatalf("Allocate = %q, %v, %v", dir, fromBuffer, err)
	}
	var pkg packageJSON
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if pkg.Name != "weekend-project" || pkg.Scripts["dev"] != "node server.mjs" {
		t.Errorf("package.json = %+v", pkg)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "public", "index.html"))
	if !strings.Contains(string(page), "<h1>Weekend Project</h1>") {
		t.Errorf("index.html was not renamed:\n%s", page)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.HasPrefix(string(readme), "# Weekend Project\n") {
		t.Errorf("README.md was not renamed")
	}
	want := []string{".gitignore", "README.md", "package.json", "public/", "public/app.js", "public/index.html", "public/style.css", "server.mjs"}
	if got := tree(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files = %v", got)
	}
	waitReady(t, b, 2) // refilled in the background

	// The same name again: the next folder, again from the buffer.
	dir, fromBuffer, err = b.Allocate(ctx, "Weekend Project")
	if err != nil || !fromBuffer || filepath.Base(dir) != "weekend-project-2" {
		t.Fatalf("second Allocate = %q, %v, %v", dir, fromBuffer, err)
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if pkg.Name != "weekend-project-2" {
		t.Errorf("package.json name = %q", pkg.Name)
	}
	waitReady(t, b, 2)
	b.Close()
	if names := dotEntries(t, root); len(names) != 0 {
		t.Errorf("temporary folders left: %v", names)
	}
}

// TestBufferAllocateEmpty: with nothing ready the project is made on demand,
// and without a target nothing is prewarmed.
func TestBufferAllocateEmpty(t *testing.T) {
	root := t.TempDir()
	b := newBuffer(t, root, BufferOptions{})
	dir, fromBuffer, err := b.Allocate(context.Background(), "")
	if err != nil || fromBuffer || dir != filepath.Join(root, "meith-app") {
		t.Fatalf("Allocate = %q, %v, %v", dir, fromBuffer, err)
	}
	var pkg packageJSON
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	if pkg.Name != "meith-app" {
		t.Errorf("package.json name = %q", pkg.Name)
	}
	b.Close() // waits for the refiller: a refill with target 0 makes nothing
	if got := b.Status(); got.Ready != 0 || got.Target != 0 {
		t.Errorf("Status = %+v", got)
	}
}

// TestBufferConcurrentAllocate allocates one name from many goroutines over
// two Buffers of one root (two processes sharing the projects folder): no
// two get the same folder and every folder is complete.
func TestBufferConcurrentAllocate(t *testing.T) {
	root := t.TempDir()
	b1 := newBuffer(t, root, BufferOptions{})
	b2 := newBuffer(t, root, BufferOptions{})
	ctx := context.Background()
	if _, err := b1.Fill(ctx, 4); err != nil {
		t.Fatal(err)
	}
	const n = 12
	dirs := make([]string, n)
	from := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		b := b1
		if i%2 == 1 {
			b = b2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], from[i], errs[i] = b.Allocate(ctx, "Hack Day")
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	fromBuffer := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Allocate %d: %v", i, errs[i])
		}
		if seen[dirs[i]] {
			t.Errorf("two allocations got %s", dirs[i])
		}
		seen[dirs[i]] = true
		if from[i] {
			fromBuffer++
		}
		var pkg packageJSON
		readJSON(t, filepath.Join(dirs[i], "package.json"), &pkg)
		if pkg.Name != filepath.Base(dirs[i]) || !strings.HasPrefix(pkg.Name, "hack-day") {
			t.Errorf("%s: package.json name %q", dirs[i], pkg.Name)
		}
		if _, err := os.Stat(filepath.Join(dirs[i], "server.mjs")); err != nil {
			t.Errorf("%s is incomplete: %v", dirs[i], err)
		}
	}
	// All 4 ready projects existed before the first Allocate and more
	// allocations than that ran, so each was handed out.
	if fromBuffer < 4 {
		t.Errorf("%d allocations came from the buffer, want at least 4", fromBuffer)
	}
	b1.Close()
	b2.Close()
	entries, _ := os.ReadDir(root)
	projects := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			projects++
		}
	}
	if projects != n {
		t.Errorf("root holds %d projects, want %d", projects, n)
	}
	if names := dotEntries(t, root); len(names) != 0 {
		t.Errorf("temporary folders left: %v", names)
	}
}

// TestBufferSurvivesRestart: ready projects stay on disk for the next
// Buffer; a plugin buffer on the same root keeps to its own.
func TestBufferSurvivesRestart(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	b, err := NewBuffer(root, BufferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Fill(ctx, 2); err != nil {
		t.Fatal(err)
	}
	b.Close()

	plugins := newBuffer(t, root, BufferOptions{Template: PluginBasic})
	if got := plugins.Status().Ready; got != 0 {
		t.Errorf("the plugin buffer counts %d ready, want 0 (the app projects are not its)", got)
	}
	if ready, err := plugins.Fill(ctx, 1); err != nil || ready != 1 {
		t.Fatalf("plugin Fill = %d, %v", ready, err)
	}
	dir, fromBuffer, err := plugins.Allocate(ctx, "Tab Notes")
	if err != nil || !fromBuffer {
		t.Fatalf("plugin Allocate = %q, %v, %v", dir, fromBuffer, err)
	}
	var m pluginManifest
	readJSON(t, filepath.Join(dir, "plugin.json"), &m)
	if m.ID != "local.tab-notes" || m.Name != "Tab Notes" {
		t.Errorf("manifest = %+v", m)
	}

	again := newBuffer(t, root, BufferOptions{})
	if got := again.Status(); got.Ready != 2 || got.Target != 0 {
		t.Fatalf("after a restart Status = %+v, want 2 ready and no target", got)
	}
	if _, fromBuffer, err := again.Allocate(ctx, "x"); err != nil || !fromBuffer {
		t.Fatalf("Allocate after a restart: fromBuffer %v, %v", fromBuffer, err)
	}
}

func TestBufferRefuses(t *testing.T) {
	root := t.TempDir()
	if _, err := NewBuffer(root, BufferOptions{Template: "nope"}); !IsUnknownTemplate(err) {
		t.Errorf("NewBuffer with an unknown template: %v", err)
	}
	if _, err := NewBuffer("rel", BufferOptions{}); !IsInvalid(err) {
		t.Errorf("NewBuffer with a relative root: %v", err)
	}
	b := newBuffer(t, root, BufferOptions{})
	for _, count := range []int{-1, 0, MaxPrewarm + 1} {
		if _, err := b.Fill(context.Background(), count); !IsInvalid(err) {
			t.Errorf("Fill(%d): %v, want an invalid-argument error", count, err)
		}
	}
	if _, _, err := b.Allocate(context.Background(), strings.Repeat("x", MaxNameRunes+1)); !IsInvalid(err) {
		t.Errorf("Allocate with a long name: %v", err)
	}
	if got := b.Status(); got.Ready != 0 || got.Target != 0 {
		t.Errorf("refused calls changed the buffer: %+v", got)
	}
}

// TestNewBufferRemovesStaleTemps: folders a crash left mid-write go when
// they are old; a fresh one (another process writing now) stays.
func TestNewBufferRemovesStaleTemps(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, tempPrefix+"old")
	fresh := filepath.Join(root, tempPrefix+"fresh")
	user := filepath.Join(root, "old-project")
	for _, dir := range []string{old, fresh, user} {
		if err := os.MkdirAll(filepath.Join(dir, "public"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleTempAge)
	for _, dir := range []string{old, user} {
		if err := os.Chtimes(dir, past, past); err != nil {
			t.Fatal(err)
		}
	}
	newBuffer(t, root, BufferOptions{})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the stale temporary folder is still there: %v", err)
	}
	for _, dir := range []string{fresh, user} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(dir), err)
		}
	}
}

// TestBufferReportsRefillErrors: a refill that cannot write calls OnError
// (and stops: it does not spin).
func TestBufferReportsRefillErrors(t *testing.T) {
	root := t.TempDir()
	errs := make(chan error, 16)
	b := newBuffer(t, root, BufferOptions{OnError: func(err error) {
		select {
		case errs <- err:
		default:
		}
	}})
	// .prewarm becomes a file: nothing can be put in it.
	prewarm := filepath.Join(root, PrewarmDir)
	if err := os.Remove(prewarm); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prewarm, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Fill(context.Background(), 1); err == nil {
		t.Fatal("Fill into a file succeeded")
	}
	if _, fromBuffer, err := b.Allocate(context.Background(), "x"); err != nil || fromBuffer {
		t.Fatalf("Allocate = %v, %v; want a project made on demand", fromBuffer, err)
	}
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "prewarm a project") {
			t.Errorf("OnError got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("OnError was not called")
	}
	b.Close()
	if names := dotEntries(t, root); len(names) != 0 {
		t.Errorf("temporary folders left: %v", names)
	}
}
