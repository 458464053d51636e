package discovery

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// listen makes a real unix socket at a short path and returns it.
func listen(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "md")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return p
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestListAndReap(t *testing.T) {
	dir := t.TempDir()
	sock := listen(t)
	staleSock := filepath.Join(t.TempDir(), "stale.sock")
	// A socket file left by a dead runtime.
	l, err := net.Listen("unix", staleSock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()

	me := os.Getpid()
	dead := deadPID(t)
	must := func(r Record) {
		t.Helper()
		if _, err := WriteRecord(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	must(Record{PID: me, SocketPath: sock, UserDataPath: "/u/a", StartedAt: 100, Label: "old"})
	must(Record{PID: dead, SocketPath: staleSock, UserDataPath: "/u/b", StartedAt: 300})
	// A second live record under another name needs another pid: reuse ppid.
	must(Record{PID: os.Getppid(), SocketPath: sock, UserDataPath: "/u/c", StartedAt: 200, Label: "new"})
	// A dead runtime's record naming a socket that a live runtime now serves:
	// the record goes, the live socket stays.
	dead2 := deadPID(t)
	must(Record{PID: dead2, SocketPath: sock, UserDataPath: "/u/d", StartedAt: 50})
	// A live pid whose socket is missing.
	os.WriteFile(filepath.Join(dir, "1.json"), []byte(`{"pid":1,"socketPath":"/nonexistent.sock","userDataPath":"/u","startedAt":5}`), 0o600)
	os.WriteFile(filepath.Join(dir, "corrupt.json"), []byte(`{not json`), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(`ignored`), 0o600)

	live, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(live); got != "new,old" {
		t.Errorf("List() labels = %q, want %q (newest first, dead and socketless excluded)", got, "new,old")
	}
	if _, err := os.Stat(filepath.Join(dir, "corrupt.json")); err != nil {
		t.Errorf("List deleted a corrupt record; only Reap may: %v", err)
	}

	live, err = Reap(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(live); got != "new,old" {
		t.Errorf("Reap() labels = %q, want %q", got, "new,old")
	}
	for _, gone := range []string{"corrupt.json", "1.json", RecordPath(dir, dead)} {
		if !filepath.IsAbs(gone) {
			gone = filepath.Join(dir, gone)
		}
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("Reap left %s (err %v), want it deleted", gone, err)
		}
	}
	if _, err := os.Stat(staleSock); !os.IsNotExist(err) {
		t.Errorf("Reap left the dead runtime's socket %s", staleSock)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("Reap removed a non-json file: %v", err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("Reap removed a live runtime's socket named by a dead record: %v", err)
	}
	if _, err := os.Stat(RecordPath(dir, dead2)); !os.IsNotExist(err) {
		t.Errorf("Reap kept the dead record %d", dead2)
	}
}

func labels(rs []Record) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += ","
		}
		s += r.Label
	}
	return s
}

func TestListMissingDir(t *testing.T) {
	live, err := List(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(live) != 0 {
		t.Errorf("List(missing) = %v, %v, want empty, nil", live, err)
	}
}

func TestMatch(t *testing.T) {
	live := []Record{{PID: 42, Label: "work"}, {PID: 7, Label: "play"}}
	tests := []struct {
		target string
		want   int
		ok     bool
	}{{"42", 42, true}, {"play", 7, true}, {"nope", 0, false}, {"", 0, false}}
	for _, tt := range tests {
		r, ok := Match(live, tt.target)
		if ok != tt.ok || r.PID != tt.want {
			t.Errorf("Match(%q) = %d, %v, want %d, %v", tt.target, r.PID, ok, tt.want, tt.ok)
		}
	}
}

func TestConfigRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "home", "config.json")
	if err := WriteConfig(p, Config{SocketPath: "/s"}); err == nil {
		t.Error("WriteConfig without userDataPath = nil, want an error")
	}
	in := Config{UserDataPath: "/u", SocketPath: "/u/tool.sock", Version: 1, AppVersion: "1.2.3", PID: 9, StartedAt: 1}
	if err := WriteConfig(p, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadConfig(p)
	if err != nil || out != in {
		t.Errorf("ReadConfig = %+v, %v, want %+v", out, err, in)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode = %v, want 0600", fi.Mode().Perm())
	}
	os.WriteFile(p, []byte(`{"socketPath":"/s","userDataPath":"/u"}`), 0o600)
	out, err = ReadConfig(p)
	if err != nil || out.Version != 1 || out.AppVersion != "0.0.0" {
		t.Errorf("ReadConfig defaults = %+v, %v, want version 1 appVersion 0.0.0", out, err)
	}
}

func TestResolvePathsHonoursEnv(t *testing.T) {
	t.Setenv("MEITH_HOME", "/tmp/mh")
	t.Setenv("MEITH_USER_DATA", "/tmp/mu")
	p, err := ResolvePaths("", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Home != "/tmp/mh" || p.UserData != "/tmp/mu" || p.InstancesDir != "/tmp/mh/instances" || p.ConfigFile != "/tmp/mh/config.json" {
		t.Errorf("ResolvePaths() = %+v", p)
	}
	p, _ = ResolvePaths("/x", "/y")
	if p.Home != "/x" || p.UserData != "/y" {
		t.Errorf("ResolvePaths(/x, /y) = %+v, want explicit values to win", p)
	}
}
