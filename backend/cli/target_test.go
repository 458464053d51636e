package cli

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/discovery"
)

// fakeHome is a temporary MEITH_HOME / MEITH_USER_DATA pair with helpers to
// write instance records and config.json.
type fakeHome struct {
	t        *testing.T
	root     string
	paths    discovery.Paths
	sockets  int
	userData string
}

func newFakeHome(t *testing.T) *fakeHome {
	t.Helper()
	root, err := os.MkdirTemp("", "ct") // short: socket paths must fit sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, ud := filepath.Join(root, "h"), filepath.Join(root, "u")
	t.Setenv("MEITH_HOME", home)
	t.Setenv("MEITH_USER_DATA", ud)
	p, err := discovery.ResolvePaths("", "")
	if err != nil {
		t.Fatal(err)
	}
	return &fakeHome{t: t, root: root, paths: p, userData: ud}
}

// listen creates a real listening unix socket and returns its path.
func (h *fakeHome) listen() string {
	h.t.Helper()
	h.sockets++
	path := filepath.Join(h.root, "s"+strings.Repeat("x", h.sockets)+".sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { l.Close() })
	return path
}

// record writes an instance record.
func (h *fakeHome) record(r discovery.Record) discovery.Record {
	h.t.Helper()
	if r.UserDataPath == "" {
		r.UserDataPath = h.userData
	}
	if _, err := discovery.WriteRecord(h.paths.InstancesDir, r); err != nil {
		h.t.Fatal(err)
	}
	return r
}

// corrupt writes an unparseable record and an invalid one.
func (h *fakeHome) corrupt() {
	h.t.Helper()
	if err := os.MkdirAll(h.paths.InstancesDir, 0o700); err != nil {
		h.t.Fatal(err)
	}
	os.WriteFile(filepath.Join(h.paths.InstancesDir, "1.json"), []byte("{not json"), 0o600)
	os.WriteFile(filepath.Join(h.paths.InstancesDir, "2.json"), []byte(`{"pid":2}`), 0o600)
	os.WriteFile(filepath.Join(h.paths.InstancesDir, "notes.txt"), []byte("x"), 0o600)
}

func (h *fakeHome) config(socket string) {
	h.t.Helper()
	if err := discovery.WriteConfig(h.paths.ConfigFile, discovery.Config{UserDataPath: h.userData, SocketPath: socket}); err != nil {
		h.t.Fatal(err)
	}
}

const deadPID = 999_999_999 // above any pid_max

func TestResolveTarget(t *testing.T) {
	me, parent := os.Getpid(), os.Getppid()

	t.Run("no records, no config: the user data socket", func(t *testing.T) {
		h := newFakeHome(t)
		got, err := ResolveTarget("", "")
		want := filepath.Join(h.userData, "tool.sock")
		if err != nil || got.SocketPath != want || got.Source != SourceFallback {
			t.Errorf("got %+v, %v; want %s from fallback", got, err, want)
		}
	})

	t.Run("config.json before the fallback", func(t *testing.T) {
		h := newFakeHome(t)
		h.config("/from/config.sock")
		got, err := ResolveTarget("", "")
		if err != nil || got.SocketPath != "/from/config.sock" || got.Source != SourceConfig {
			t.Errorf("got %+v, %v", got, err)
		}
	})

	t.Run("corrupt config.json is skipped", func(t *testing.T) {
		h := newFakeHome(t)
		os.MkdirAll(h.paths.Home, 0o700)
		os.WriteFile(h.paths.ConfigFile, []byte(`{"socketPath":`), 0o600)
		got, _ := ResolveTarget("", "")
		if got.Source != SourceFallback {
			t.Errorf("got %+v; want the fallback", got)
		}
	})

	t.Run("newest live instance; corrupt, dead and socketless records skipped", func(t *testing.T) {
		h := newFakeHome(t)
		h.config("/from/config.sock")
		h.corrupt()
		h.record(discovery.Record{PID: parent, SocketPath: h.listen(), StartedAt: 1000, Label: "older"})
		newer := h.record(discovery.Record{PID: me, SocketPath: h.listen(), StartedAt: 2000, Label: "newer"})
		// Newer still, but dead: never chosen.
		h.record(discovery.Record{PID: deadPID, SocketPath: h.listen(), StartedAt: 3000, Label: "dead"})

		live, err := liveInstances()
		if err != nil || len(live) != 2 || live[0].Label != "newer" || live[1].Label != "older" {
			t.Fatalf("live = %+v, %v; want newer then older", live, err)
		}
		got, err := ResolveTarget("", "")
		if err != nil || got.SocketPath != newer.SocketPath || got.Source != SourceNewest || got.Instance == nil || got.Instance.PID != me {
			t.Errorf("got %+v, %v; want the newest live record", got, err)
		}
		// The CLI only reads: nothing was reaped.
		entries, _ := os.ReadDir(h.paths.InstancesDir)
		if len(entries) != 6 {
			t.Errorf("instances dir has %d entries after resolving, want all 6 kept", len(entries))
		}
	})

	t.Run("a record whose socket is gone is not live", func(t *testing.T) {
		h := newFakeHome(t)
		h.record(discovery.Record{PID: me, SocketPath: filepath.Join(h.root, "gone.sock"), StartedAt: 5})
		got, _ := ResolveTarget("", "")
		if got.Source != SourceFallback {
			t.Errorf("got %+v; want the fallback", got)
		}
	})

	t.Run("--socket wins over everything", func(t *testing.T) {
		h := newFakeHome(t)
		h.config("/from/config.sock")
		h.record(discovery.Record{PID: me, SocketPath: h.listen(), StartedAt: 2000, Label: "a"})
		got, err := ResolveTarget("/explicit.sock", "a")
		if err != nil || got.SocketPath != "/explicit.sock" || got.Source != SourceSocket {
			t.Errorf("got %+v, %v", got, err)
		}
	})

	t.Run("--instance by pid and by label", func(t *testing.T) {
		h := newFakeHome(t)
		older := h.record(discovery.Record{PID: parent, SocketPath: h.listen(), StartedAt: 1000, Label: "older"})
		h.record(discovery.Record{PID: me, SocketPath: h.listen(), StartedAt: 2000, Label: "newer"})
		for _, id := range []string{"older", strconv.Itoa(parent)} {
			got, err := ResolveTarget("", id)
			if err != nil || got.SocketPath != older.SocketPath || got.Source != SourceInstance {
				t.Errorf("--instance %s: got %+v, %v; want the older record", id, got, err)
			}
		}
	})

	t.Run("--instance without a match is an error", func(t *testing.T) {
		h := newFakeHome(t)
		h.record(discovery.Record{PID: me, SocketPath: h.listen(), StartedAt: 2000, Label: "a"})
		h.record(discovery.Record{PID: deadPID, SocketPath: h.listen(), StartedAt: 2000, Label: "dead"})
		for _, id := range []string{"nope", "dead", strconv.Itoa(deadPID)} {
			_, err := ResolveTarget("", id)
			want := `No live instance matches "` + id + `". Run "meith app list" to see running instances.`
			if err == nil || err.Error() != want {
				t.Errorf("--instance %s: err = %v, want %q", id, err, want)
			}
		}
	})
}
