package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// The manifest files of a plugin folder (reference §8): plugin.json, else
// the "meith" field of package.json.
const (
	ManifestFile = "plugin.json"
	PackageFile  = "package.json"
	PackageField = "meith"
)

// Manifest limits.
const (
	// MaxManifestBytes bounds plugin.json (and a dev server's answer).
	MaxManifestBytes = 256 << 10
	// MaxPackageBytes bounds a package.json read for its "meith" field.
	MaxPackageBytes = 1 << 20
	// DefaultEntry and DefaultVersion are what a manifest without them
	// gets.
	DefaultEntry   = "index.html"
	DefaultVersion = "0.0.0"
)

// Manifest is a plugin manifest (the original's PluginManifestSchema).
// Fields the schema does not know are ignored.
type Manifest struct {
	// Kind is always "plugin".
	Kind string `json:"kind"`
	// ID matches [state.PluginIDPattern].
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	// Entry is the page to open, a clean relative path inside the root.
	Entry string `json:"entry"`
	// Permissions are the requested capabilities.
	Permissions []protocol.Capability `json:"permissions"`
	// RequestedAPIs are the requested API scopes (tools, storage, cdp, ai).
	RequestedAPIs []string `json:"requestedApis"`
}

// Requested returns the grants the manifest asks for.
func (m Manifest) Requested() state.PluginGrants {
	return state.PluginGrants{Capabilities: slices.Clone(m.Permissions), APIs: slices.Clone(m.RequestedAPIs)}.Clone()
}

// ParseManifest parses and validates a manifest document; from names it in
// errors ("plugin.json", "package.json field \"meith\"", a URL). The rules
// are reference §8's: kind "plugin"; an id of at least two segments of
// letters and digits joined by '.', '_' or '-' (at most 128 characters); a
// non-empty name; version (default 0.0.0) and description strings; an entry
// (default index.html) that is relative and stays inside the root, made
// clean ("./index.html" is index.html); permissions from the capability
// vocabulary and requestedApis among tools, storage, cdp and ai (repeats
// dropped). A value of the wrong type or out of its bounds is an
// [*Error] with [CodeInvalid].
func ParseManifest(doc []byte, from string) (Manifest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(doc, &fields); err != nil || fields == nil {
		return Manifest{}, invalidf("Invalid plugin manifest (%s): not a JSON object", from)
	}
	bad := func(format string, args ...any) error {
		return invalidf("Invalid plugin manifest (%s): %s", from, fmt.Sprintf(format, args...))
	}
	str := func(key string, required bool, max int) (string, error) {
		raw, ok := fields[key]
		if !ok || string(raw) == "null" {
			if required {
				return "", bad("%s is required", key)
			}
			return "", nil
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", bad("%s must be a string", key)
		}
		if utf8.RuneCountInString(v) > max {
			return "", bad("%s is longer than %d characters", key, max)
		}
		return v, nil
	}
	list := func(key string, valid func(string) bool, what string) ([]string, error) {
		raw, ok := fields[key]
		if !ok || string(raw) == "null" {
			return []string{}, nil
		}
		var v []string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, bad("%s must be a list of strings", key)
		}
		out := []string{}
		for _, s := range v {
			if !valid(s) {
				return nil, bad("%s has %q, which is not %s", key, clip(s, 64), what)
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var m Manifest
	var err error
	if m.Kind, err = str("kind", true, 64); err != nil {
		return Manifest{}, err
	}
	if m.Kind != "plugin" {
		return Manifest{}, bad(`kind must be "plugin"`)
	}
	if m.ID, err = str("id", true, state.MaxPluginIDLength); err != nil {
		return Manifest{}, err
	}
	if !state.PluginIDPattern.MatchString(m.ID) {
		return Manifest{}, bad("id %q is not a plugin id: two or more parts of letters and digits joined by '.', '_' or '-', such as com.example.board", m.ID)
	}
	if m.Name, err = str("name", true, state.MaxNameLength); err != nil {
		return Manifest{}, err
	}
	if m.Name = strings.TrimSpace(m.Name); m.Name == "" {
		return Manifest{}, bad("name is empty")
	}
	if m.Version, err = str("version", false, state.MaxPluginVersionLength); err != nil {
		return Manifest{}, err
	}
	if m.Version = strings.TrimSpace(m.Version); m.Version == "" {
		m.Version = DefaultVersion
	}
	if m.Description, err = str("description", false, state.MaxPluginDescriptionLength); err != nil {
		return Manifest{}, err
	}
	if m.Entry, err = str("entry", false, state.MaxPathLength); err != nil {
		return Manifest{}, err
	}
	if m.Entry, err = cleanEntry(m.Entry); err != nil {
		return Manifest{}, bad("%v", err)
	}
	perms, err := list("permissions", func(s string) bool { return protocol.Capability(s).Valid() },
		"a capability ("+protocol.JoinCapabilities(protocol.Capabilities, ", ")+")")
	if err != nil {
		return Manifest{}, err
	}
	for _, p := range perms {
		m.Permissions = append(m.Permissions, protocol.Capability(p))
	}
	if m.Permissions == nil {
		m.Permissions = []protocol.Capability{}
	}
	if m.RequestedAPIs, err = list("requestedApis", func(s string) bool { return slices.Contains(state.PluginAPIs, s) },
		"an API scope ("+strings.Join(state.PluginAPIs, ", ")+")"); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// cleanEntry returns the manifest's entry made clean (default
// index.html), or an error when it is absolute or leaves the root.
func cleanEntry(entry string) (string, error) {
	if entry == "" {
		return DefaultEntry, nil
	}
	if strings.HasPrefix(entry, "/") || strings.Contains(entry, `\`) {
		return "", errors.New("entry must be a path relative to the plugin's folder")
	}
	if slices.Contains(strings.Split(entry, "/"), "..") {
		return "", errors.New("entry must stay inside the plugin's folder (no ..)")
	}
	c := path.Clean(entry)
	if !state.ValidPluginEntry(c) {
		return "", errors.New("entry must name a file inside the plugin's folder")
	}
	return c, nil
}

// readManifest reads the manifest of the folder r: plugin.json, else the
// "meith" object of package.json. Both must be regular files inside the
// folder (a link out of it is refused, as os.Root does).
func readManifest(r *os.Root, folder string) (Manifest, error) {
	doc, err := readRegular(r, ManifestFile, MaxManifestBytes)
	if err == nil {
		return ParseManifest(doc, ManifestFile)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fileError(folder, ManifestFile, err)
	}
	doc, err = readRegular(r, PackageFile, MaxPackageBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, invalidf("No plugin manifest in %s: add %s, or a %q field to %s", folder, ManifestFile, PackageField, PackageFile)
	}
	if err != nil {
		return Manifest{}, fileError(folder, PackageFile, err)
	}
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal(doc, &pkg); err != nil {
		return Manifest{}, invalidf("Invalid %s in %s: not a JSON object", PackageFile, folder)
	}
	raw, ok := pkg[PackageField]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Manifest{}, invalidf("No plugin manifest in %s: add %s, or a %q field to %s", folder, ManifestFile, PackageField, PackageFile)
	}
	return ParseManifest(raw, fmt.Sprintf("%s field %q", PackageFile, PackageField))
}

// errNotRegular is a manifest or entry that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// errTooLarge is a file over its bound.
var errTooLarge = errors.New("too large")

// readRegular reads name inside r: a regular file of at most max bytes,
// opened without blocking (a named pipe in its place fails at once).
func readRegular(r *os.Root, name string, max int64) ([]byte, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	if fi.Size() > max {
		return nil, errTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooLarge
	}
	return b, nil
}

// fileError is the INVALID error of a manifest file that cannot be used.
func fileError(folder, name string, err error) error {
	switch {
	case errors.Is(err, errNotRegular):
		return invalidf("%s in %s is not a regular file", name, folder)
	case errors.Is(err, errTooLarge):
		return invalidf("%s in %s is too large", name, folder)
	case isEscape(err):
		return invalidf("%s in %s is a link that leaves the plugin's folder", name, folder)
	}
	return &Error{Code: CodeInvalid, Msg: fmt.Sprintf("%s in %s cannot be read: %v", name, folder, unwrapPath(err)), Err: err}
}

// isEscape reports whether err is os.Root's refusal of a path that leaves
// the root (through "..", or a link out of it or absolute).
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes")
}

// unwrapPath drops the path of a *fs.PathError (the message names the
// file already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// clip cuts s to n characters for a message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
