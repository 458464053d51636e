package process

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shutdown stops m as the runtime does when it quits.
func shutdown(t *testing.T, m *Manager) {
	t.Helper()
	if err := m.Shutdown(context.Background(), true); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func scrollbackFiles(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]os.FileInfo{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi
	}
	return out
}

func TestScrollbackPersistedOnShutdownAndRestoredAboveANewShell(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scrollback")
	cwd := t.TempDir()
	m1 := New(Options{ScrollbackDir: dir})
	old := newTerminal(t, m1, TermSpec{Shell: "bash", Cwd: cwd})
	writeTerm(t, m1, old.ID, "echo before-$((40+2))\r")
	waitOutput(t, m1, old.ID, "before-42")
	shutdown(t, m1)

	files := scrollbackFiles(t, dir)
	fi, ok := files[old.ID+scrollbackExt]
	if !ok || len(files) != 1 {
		t.Fatalf("files after shutdown: %v", files)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("dir: %v %v", di, err)
	}

	m2 := New(Options{ScrollbackDir: dir})
	t.Cleanup(func() { _ = m2.Shutdown(context.Background(), true) }) // after a failure
	term := newTerminal(t, m2, TermSpec{Shell: "bash", Cwd: cwd, RestoreFrom: old.ID})
	if term.RestoredFrom != old.ID || term.Cwd != cwd || term.ID == old.ID {
		t.Fatalf("restored terminal %+v", term)
	}
	buf := waitOutput(t, m2, term.ID, SessionEndedNote)
	if i, j := strings.Index(buf, "before-42"), strings.Index(buf, SessionEndedNote); i < 0 || i > j {
		t.Fatalf("the old output is not above the note:\n%q", buf)
	}
	// The new shell works, below the note.
	writeTerm(t, m2, term.ID, "echo after-$((1+1)); pwd\r")
	buf = waitOutput(t, m2, term.ID, "after-2")
	if !strings.Contains(buf[strings.Index(buf, SessionEndedNote):], cwd) {
		t.Errorf("the new shell does not run in %s:\n%q", cwd, buf)
	}
	// Its file is gone: the new terminal's scrollback carries it on.
	if files := scrollbackFiles(t, dir); len(files) != 0 {
		t.Errorf("files after the restore: %v", files)
	}
	// A second window on the same tab, attaching at once, gets it too; the
	// tab's binding moving on (closing the old id) does not drop it.
	if err := m2.CloseTerminal(context.Background(), old.ID); err != nil {
		t.Errorf("CloseTerminal(restored id): %v", err)
	}
	again := newTerminal(t, m2, TermSpec{Shell: "bash", Cwd: cwd, RestoreFrom: old.ID})
	if again.RestoredFrom != old.ID {
		t.Errorf("the second view's terminal: %+v", again)
	}
	waitOutput(t, m2, again.ID, "before-42")
	shutdown(t, m2)
	// The next shutdown saves the two new terminals, not the old one again.
	files = scrollbackFiles(t, dir)
	if _, ok := files[old.ID+scrollbackExt]; ok || len(files) != 2 {
		t.Errorf("files after the second shutdown: %v", files)
	}
}

func TestScrollbackOfUnopenedTabsIsKeptAndCloseDiscardsIt(t *testing.T) {
	dir := t.TempDir()
	m1 := New(Options{ScrollbackDir: dir})
	a := newTerminal(t, m1, TermSpec{Shell: "bash"})
	b := newTerminal(t, m1, TermSpec{Shell: "bash"})
	writeTerm(t, m1, a.ID, "echo aaa-$((1))\r")
	writeTerm(t, m1, b.ID, "echo bbb-$((2))\r")
	waitOutput(t, m1, a.ID, "aaa-1")
	waitOutput(t, m1, b.ID, "bbb-2")
	shutdown(t, m1)

	// A second run that restores neither keeps both for the next one.
	shutdown(t, New(Options{ScrollbackDir: dir}))
	if files := scrollbackFiles(t, dir); len(files) != 2 {
		t.Fatalf("files after a run that opened no tab: %v", files)
	}
	m3 := newManager(t, Options{ScrollbackDir: dir})
	// Closing the terminal of a closed tab discards its scrollback.
	if err := m3.CloseTerminal(context.Background(), a.ID); err != nil {
		t.Fatalf("CloseTerminal(saved): %v", err)
	}
	if _, ok := scrollbackFiles(t, dir)[a.ID+scrollbackExt]; ok {
		t.Error("the closed tab's scrollback is still saved")
	}
	term := newTerminal(t, m3, TermSpec{Shell: "bash", RestoreFrom: b.ID})
	waitOutput(t, m3, term.ID, "bbb-2")
}

func TestScrollbackBounds(t *testing.T) {
	defer func(per, total int) { savedScrollbackBytes, savedScrollbackTotal = per, total }(savedScrollbackBytes, savedScrollbackTotal)
	savedScrollbackBytes, savedScrollbackTotal = 8<<10, 20<<10

	dir := t.TempDir()
	m1 := New(Options{ScrollbackDir: dir})
	var ids []string
	for i := range 3 {
		term := newTerminal(t, m1, TermSpec{Shell: "bash"})
		ids = append(ids, term.ID)
		// 30 KiB of numbered lines, then an end mark.
		writeTerm(t, m1, term.ID, "seq 100000 105000; echo end-of-$((10+"+string(rune('0'+i))+"))\r")
		waitOutput(t, m1, term.ID, "end-of-1"+string(rune('0'+i)))
	}
	shutdown(t, m1)

	files := scrollbackFiles(t, dir)
	total := int64(0)
	for name, fi := range files {
		if fi.Size() > int64(savedScrollbackBytes)+maxScrollbackHeader {
			t.Errorf("%s holds %d bytes, more than %d", name, fi.Size(), savedScrollbackBytes)
		}
		total += fi.Size()
	}
	// The newest two fit in the total; the oldest is left out.
	if len(files) != 2 || files[ids[0]+scrollbackExt] != nil || total > int64(savedScrollbackTotal)+2*maxScrollbackHeader {
		t.Fatalf("files %v (%d bytes in all)", files, total)
	}

	m2 := newManager(t, Options{ScrollbackDir: dir})
	term := newTerminal(t, m2, TermSpec{Shell: "bash", RestoreFrom: ids[2]})
	buf := waitOutput(t, m2, term.ID, SessionEndedNote)
	old := buf[:strings.Index(buf, SessionEndedNote)]
	// The newest output is kept, cut at a line start.
	if !strings.Contains(old, "end-of-12") || strings.Contains(old, "100000\r\n") || !strings.HasPrefix(old, "1") {
		t.Errorf("restored %d bytes starting %q", len(old), old[:min(len(old), 20)])
	}
}

func TestCorruptScrollbackFilesAreIgnored(t *testing.T) {
	dir := t.TempDir()
	m1 := New(Options{ScrollbackDir: dir})
	good := newTerminal(t, m1, TermSpec{Shell: "bash"})
	writeTerm(t, m1, good.ID, "echo good-$((3*3))\r")
	waitOutput(t, m1, good.ID, "good-9")
	shutdown(t, m1)

	bad := map[string][]byte{
		"term_000000000001" + scrollbackExt: []byte("not json at all\nsomething"),
		"term_000000000002" + scrollbackExt: []byte(`{"version":1,"id":"term_000000000002"}`), // no newline
		"term_000000000003" + scrollbackExt: []byte(`{"version":1,"id":"term_elsewhere"}` + "\nx"),
		"term_000000000004" + scrollbackExt: append([]byte(`{"version":1,"id":"term_000000000004"}`+"\n"), make([]byte, savedScrollbackBytes+1)...),
		"term_000000000005" + scrollbackExt: []byte(`{"version":99,"id":"term_000000000005"}` + "\nx"),
	}
	for name, b := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var warned []string
	m2 := newManager(t, Options{ScrollbackDir: dir, Logf: func(level, format string, args ...any) {
		if level == "warn" {
			warned = append(warned, format)
		}
	}})
	for name := range bad {
		id := strings.TrimSuffix(name, scrollbackExt)
		if term := newTerminal(t, m2, TermSpec{Shell: "bash", RestoreFrom: id}); term.RestoredFrom != "" {
			t.Errorf("%s restored", name)
		}
		if _, ok := scrollbackFiles(t, dir)[name]; ok {
			t.Errorf("%s was not removed", name)
		}
	}
	if len(warned) == 0 {
		t.Error("no warning about the unreadable files")
	}
	term := newTerminal(t, m2, TermSpec{Shell: "bash", RestoreFrom: good.ID})
	waitOutput(t, m2, term.ID, "good-9")
}

func TestScrollbackTail(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"fits", "a\r\nb", 10, "a\r\nb"},
		{"cut at a line start", "line1\r\nline2\r\nline3", 9, "line3"},
		{"no newline: a rune start", "ééééé", 5, "éé"},
		{"empty", "", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scrollbackTail(tt.in, tt.max); got != tt.want {
				t.Errorf("scrollbackTail(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}
