// Package discovery is how runtimes and CLIs find each other: the paths of
// MEITH_HOME and the user data dir, ~/.meith/config.json, and the live
// instance records under ~/.meith/instances/<pid>.json.
//
// The runtime writes (WriteConfig, WriteRecord, Reap); the CLI only reads
// (Live, ReadConfig). The file formats are the original's (reference §2.4–2.5).
package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/meith-dev/meith/backend/internal/atomicfile"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Paths are the well-known locations of one meith setup.
type Paths struct {
	Home         string // MEITH_HOME, default ~/.meith
	UserData     string // MEITH_USER_DATA, default os.UserConfigDir()/meith
	ConfigFile   string // <Home>/config.json
	InstancesDir string // <Home>/instances
	BinDir       string // <Home>/bin
}

// ResolvePaths returns the paths for home and userData; empty values fall
// back to MEITH_HOME / MEITH_USER_DATA and then to the defaults.
func ResolvePaths(home, userData string) (Paths, error) {
	if home == "" {
		home = os.Getenv("MEITH_HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, fmt.Errorf("locate home directory (set MEITH_HOME): %w", err)
		}
		home = filepath.Join(h, ".meith")
	}
	if userData == "" {
		userData = os.Getenv("MEITH_USER_DATA")
	}
	if userData == "" {
		c, err := os.UserConfigDir()
		if err != nil {
			return Paths{}, fmt.Errorf("locate user config directory (set MEITH_USER_DATA): %w", err)
		}
		userData = filepath.Join(c, "meith")
	}
	home, _ = filepath.Abs(home)
	userData, _ = filepath.Abs(userData)
	return Paths{
		Home:         home,
		UserData:     userData,
		ConfigFile:   filepath.Join(home, "config.json"),
		InstancesDir: filepath.Join(home, "instances"),
		BinDir:       filepath.Join(home, "bin"),
	}, nil
}

// Config is ~/.meith/config.json, rewritten by the newest runtime at start.
type Config struct {
	UserDataPath    string `json:"userDataPath"`
	SocketPath      string `json:"socketPath"`
	Version         int    `json:"version"`
	AppVersion      string `json:"appVersion"`
	ProtocolVersion int    `json:"protocolVersion,omitempty"`
	PID             int    `json:"pid,omitempty"`
	StartedAt       int64  `json:"startedAt,omitempty"` // epoch ms
	InstancesDir    string `json:"instancesDir,omitempty"`
	InstancePath    string `json:"instancePath,omitempty"`
	CLIBinPath      string `json:"cliBinPath,omitempty"`
	AppPath         string `json:"appPath,omitempty"`
}

// Record is one live runtime, ~/.meith/instances/<pid>.json.
type Record struct {
	PID             int    `json:"pid"`
	SocketPath      string `json:"socketPath"`
	UserDataPath    string `json:"userDataPath"`
	AppVersion      string `json:"appVersion"`
	ProtocolVersion int    `json:"protocolVersion,omitempty"`
	StartedAt       int64  `json:"startedAt"` // epoch ms
	Cwd             string `json:"cwd,omitempty"`
	Label           string `json:"label,omitempty"`
	CLIBinPath      string `json:"cliBinPath,omitempty"`
	AppPath         string `json:"appPath,omitempty"`
	// Kind is "desktop" or "serve"; an addition of the rewrite.
	Kind string `json:"kind,omitempty"`
}

// ErrInvalid reports a config or record that does not satisfy its schema.
var ErrInvalid = errors.New("invalid record")

// Validate checks the required fields of a config.
func (c Config) Validate() error {
	if c.SocketPath == "" || c.UserDataPath == "" {
		return fmt.Errorf("config: socketPath and userDataPath are required: %w", ErrInvalid)
	}
	return nil
}

// Validate checks the required fields of a record.
func (r Record) Validate() error {
	if r.PID <= 0 || r.SocketPath == "" || r.UserDataPath == "" || r.StartedAt <= 0 {
		return fmt.Errorf("instance record: pid, socketPath, userDataPath and startedAt are required: %w", ErrInvalid)
	}
	return nil
}

// ReadConfig reads and validates config.json; defaults are applied.
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("read %s: %w: %v", path, ErrInvalid, err)
	}
	if c.Version == 0 {
		c.Version = 1
	}
	if c.AppVersion == "" {
		c.AppVersion = "0.0.0"
	}
	return c, c.Validate()
}

// WriteConfig writes config.json atomically (pretty JSON, 2-space indent).
func WriteConfig(path string, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return writeJSON(path, c)
}

// RecordPath is where the record of pid lives under dir.
func RecordPath(dir string, pid int) string {
	return filepath.Join(dir, strconv.Itoa(pid)+".json")
}

// WriteRecord writes r atomically to <dir>/<pid>.json and returns the path.
func WriteRecord(dir string, r Record) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	if r.AppVersion == "" {
		r.AppVersion = "0.0.0"
	}
	p := RecordPath(dir, r.PID)
	return p, writeJSON(p, r)
}

// RemoveRecord deletes the record of pid; a missing record is not an error.
func RemoveRecord(dir string, pid int) error {
	err := os.Remove(RecordPath(dir, pid))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Alive reports whether a process with pid exists (EPERM counts as alive).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func socketExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Type() == fs.ModeSocket
}

// refused reports whether connecting to the unix socket at path is refused:
// a socket file that no process listens on any more.
func refused(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// Live reports whether r's process is alive and its socket exists.
func (r Record) Live() bool { return Alive(r.PID) && socketExists(r.SocketPath) }

// List reads every *.json record under dir, skipping unreadable or invalid
// ones, and returns the live ones newest first. It never deletes anything
// (the CLI uses it). A missing dir gives an empty list.
func List(dir string) ([]Record, error) {
	all, _, err := scan(dir)
	if err != nil {
		return nil, err
	}
	var live []Record
	for _, r := range all {
		if r.Live() {
			live = append(live, r)
		}
	}
	sortNewest(live)
	return live, nil
}

// Reap deletes stale records under dir — unparseable ones, and those whose
// process is dead or whose socket is missing — and, for a dead process whose
// socket file remains and refuses connections, that socket file too. It returns the live records,
// newest first (the runtime calls it at start).
func Reap(dir string) ([]Record, error) {
	all, bad, err := scan(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range bad {
		_ = os.Remove(p)
	}
	var live []Record
	for _, r := range all {
		if r.Live() {
			live = append(live, r)
			continue
		}
		_ = RemoveRecord(dir, r.PID)
		if !Alive(r.PID) && socketExists(r.SocketPath) && refused(r.SocketPath) {
			// The dead runtime's socket, which nothing answers any more.
			// A socket that answers belongs to a live runtime (the path
			// may have been taken over) and is never removed.
			_ = os.Remove(r.SocketPath)
		}
	}
	sortNewest(live)
	return live, nil
}

func scan(dir string) (records []Record, bad []string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read instances dir: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var r Record
		if json.Unmarshal(b, &r) != nil || r.Validate() != nil {
			bad = append(bad, p)
			continue
		}
		records = append(records, r)
	}
	return records, bad, nil
}

func sortNewest(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].StartedAt > rs[j].StartedAt })
}

// Match finds the live record whose pid or label equals target.
func Match(live []Record, target string) (Record, bool) {
	for _, r := range live {
		if strconv.Itoa(r.PID) == target || (r.Label != "" && r.Label == target) {
			return r, true
		}
	}
	return Record{}, false
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}
