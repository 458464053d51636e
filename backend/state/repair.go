package state

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// errNotObject is the decode error of a document that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// decoded is what [decode] makes of a state.json document.
type decoded struct {
	st      State
	from    int      // the version the document had
	repairs []string // what was repaired, one note per kind
}

// decode parses, migrates and repairs a state.json document. Only a
// document that is not a JSON object at all fails (or one from a newer
// version, with a *NewerVersionError); anything that parses is brought to a
// valid state, keeping what can be kept, and the repairs are reported.
func decode(raw []byte, now int64) (decoded, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		if len(t) == 0 || json.Valid(t) {
			return decoded{}, errNotObject
		}
		return decoded{}, fmt.Errorf("parse: %w", json.Unmarshal(t, new(any)))
	}
	var head struct {
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return decoded{}, fmt.Errorf("parse: %w", err)
	}
	var rep repairLog
	from, plain := parseVersion(head.Version, &rep)
	if from > CurrentVersion {
		return decoded{}, &NewerVersionError{Found: from, Supported: CurrentVersion}
	}
	body := raw
	if from < CurrentVersion || !plain {
		// The generic form, for the migrations (and a version to rewrite).
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return decoded{}, fmt.Errorf("parse: %w", err)
		}
		sanitizeDoc(doc, &rep)
		doc["version"] = float64(from)
		if _, err := migrate(doc, now); err != nil {
			return decoded{}, err
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return decoded{}, fmt.Errorf("re-encode: %w", err)
		}
		body = b
	}
	st := State{Settings: DefaultSettings()} // keys missing from the file keep their defaults
	if err := json.Unmarshal(body, &st); err != nil {
		// encoding/json skips a value of the wrong type and decodes the
		// rest; it reports the first such value.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return decoded{}, fmt.Errorf("invalid shape: %w", err)
		}
		rep.add(fmt.Sprintf("values of the wrong type were left out (the first: %s where %s belongs, at %s)",
			te.Value, describeGoType(te.Type.String()), cmp.Or(te.Field, "the top level")))
	}
	st.Version = CurrentVersion
	st.repair(now, &rep)
	st = st.Clone() // normalizes nil lists to empty ones
	st.NormalizeLayouts()
	if err := st.Validate(); err != nil {
		return decoded{}, fmt.Errorf("invalid state after repair: %w", err)
	}
	return decoded{st: st, from: from, repairs: rep.list()}, nil
}

// parseVersion reads the version field: absent or null is 0, a
// non-negative integer is itself (plain), an integer in a string is read
// (not plain: the document is rewritten), anything else is noted and read
// as 0, so every migration runs (they only add what is missing).
func parseVersion(raw json.RawMessage, rep *repairLog) (v int, plain bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, true
	}
	var n json.Number // (json.Number also takes a quoted number: not plain)
	if err := json.Unmarshal(raw, &n); err == nil && raw[0] != '"' {
		if i, err := strconv.ParseInt(string(n), 10, 32); err == nil && i >= 0 {
			return int(i), true
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if i, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && i >= 0 {
			rep.add("the version was a string; it is a number again")
			return i, false
		}
	}
	rep.add("the version was not a non-negative integer; the file was read as version 0 and brought up to date")
	return 0, false
}

// sanitizeDoc makes the generic document safe for the migrations: the
// lists are lists of objects and the settings an object.
func sanitizeDoc(doc map[string]any, rep *repairLog) {
	for _, key := range []string{"spaces", "browserTabs", "workspaceTabs", "projects", "plugins"} {
		v, ok := doc[key]
		if !ok || v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			rep.add(fmt.Sprintf("%s was not a list (values of the wrong type were left out)", key))
			doc[key] = []any{}
			continue
		}
		kept := list[:0]
		for _, item := range list {
			if _, ok := item.(map[string]any); ok {
				kept = append(kept, item)
			} else {
				rep.add(fmt.Sprintf("items of %s that were not objects were dropped", key))
			}
		}
		doc[key] = kept
	}
	if v, ok := doc["settings"]; ok && v != nil {
		if _, ok := v.(map[string]any); !ok {
			rep.add("settings was not an object (values of the wrong type were left out); defaults are used")
			doc["settings"] = map[string]any{}
		}
	}
}

// UntitledSpaceName names a loaded space that had no name.
const UntitledSpaceName = "Untitled"

// repair fixes what a hand-edited, half-written or older file can get
// wrong, keeping whatever can be kept: junk items are dropped, missing ids
// are given and repeated ones renamed (the later copy), missing names
// filled, references to what does not exist dropped (the active space
// falls back to the first one, tabs of a missing space go), unknown tab
// kinds dropped, one active workspace tab per space kept, projects repaired
// (see repairProjects), plugins repaired (see repairPlugins), unknown settings
// reset to their defaults, and over-long fields cut (paths cleared). Each
// kind of repair is noted once, with a count.
func (s *State) repair(now int64, rep *repairLog) {
	ids := map[string]bool{}
	claim := func(id *string, prefix, what string) {
		switch {
		case *id == "":
			*id = newID(prefix)
			rep.add(fmt.Sprintf("a %s had no id and got one", what))
		case ids[*id]:
			old := *id
			*id = newID(prefix)
			rep.add(fmt.Sprintf("id %s appeared more than once; the later %s got id %s", old, what, *id))
		}
		ids[*id] = true
	}

	spaces := s.Spaces[:0]
	for _, sp := range s.Spaces {
		if sp == (Space{}) { // not an object, or an empty one
			rep.add("empty space entries were dropped")
			continue
		}
		claim(&sp.ID, SpacePrefix, "space")
		if strings.TrimSpace(sp.Name) == "" {
			sp.Name = UntitledSpaceName
			rep.add(fmt.Sprintf("spaces without a name were named %q", UntitledSpaceName))
		}
		if sp.Color == "" {
			sp.Color = Palette[len(spaces)%len(Palette)]
			rep.add("spaces without a color got one")
		}
		spaces = append(spaces, sp)
	}
	s.Spaces = spaces
	if len(s.Spaces) == 0 {
		s.Spaces = []Space{NewSpace(DefaultSpaceName, Palette[defaultSpaceColorIx], now)}
		ids[s.Spaces[0].ID] = true
		rep.add(fmt.Sprintf("there were no spaces; a %q space was added", DefaultSpaceName))
	}
	if s.Space(s.ActiveSpaceID) == nil {
		s.ActiveSpaceID = s.Spaces[0].ID
		rep.add("the active space did not exist; the first space is active")
	}

	btabs := s.BrowserTabs[:0]
	for _, t := range s.BrowserTabs {
		switch {
		case t == (BrowserTab{}):
			rep.add("empty browser tab entries were dropped")
			continue
		case s.Space(t.SpaceID) == nil:
			rep.add("browser tabs of a space that does not exist were dropped")
			continue
		}
		claim(&t.ID, BrowserTabPrefix, "browser tab")
		if t.Mode == "" {
			t.Mode = BrowserModeWeb
		}
		if t.ClampPageFields() {
			rep.add("over-long browser tab titles, URLs or error texts were shortened")
		}
		btabs = append(btabs, t)
	}
	s.BrowserTabs = btabs

	wtabs := s.WorkspaceTabs[:0]
	active := map[string]bool{}
	for _, t := range s.WorkspaceTabs {
		switch {
		case reflect.ValueOf(t).IsZero():
			rep.add("empty workspace tab entries were dropped")
			continue
		case s.Space(t.SpaceID) == nil:
			rep.add("workspace tabs of a space that does not exist were dropped")
			continue
		case !slices.Contains(WorkspaceTabKinds, t.Kind):
			rep.add("workspace tabs of an unknown kind were dropped")
			continue
		}
		claim(&t.ID, WorkspaceTabPrefix, "workspace tab")
		if t.Active && active[t.SpaceID] {
			t.Active = false
			rep.add("spaces with more than one active workspace tab keep the first one active")
		}
		active[t.SpaceID] = active[t.SpaceID] || t.Active
		if len(t.OpenFilePaths) > MaxOpenFiles {
			t.OpenFilePaths = t.OpenFilePaths[:MaxOpenFiles]
			rep.add(fmt.Sprintf("editor tabs with more than %d open files keep the first %d", MaxOpenFiles, MaxOpenFiles))
		}
		wtabs = append(wtabs, t)
	}
	s.WorkspaceTabs = wtabs

	s.repairProjects(claim, rep)
	s.repairPlugins(rep)
	s.Settings.repair(rep)
	s.repairLengths(rep)
}

// repair resets unknown settings to their defaults, clamps the git refresh
// interval and the audit retention, and gives identity profiles unique ids and an active profile
// that exists.
func (a *AppSettings) repair(rep *repairLog) {
	def := DefaultSettings()
	if !slices.Contains(PackageManagers, a.DefaultPackageManager) {
		a.DefaultPackageManager = def.DefaultPackageManager
		rep.add("an unknown default package manager in the settings was reset")
	}
	if !slices.Contains(DevServerOpenBrowserModes, a.DevServerOpenBrowser) {
		a.DevServerOpenBrowser = def.DevServerOpenBrowser
		rep.add("an unknown devServerOpenBrowser in the settings was reset")
	}
	if au := &a.Audit; au.validate() != nil {
		au.RetentionDays = min(MaxAuditRetentionDays, max(MinAuditRetentionDays, au.RetentionDays))
		au.MaxMB = min(MaxAuditMaxMB, max(MinAuditMaxMB, au.MaxMB))
		rep.add("the audit retention in the settings was brought within its limits")
	}
	g := &a.Git
	if g.RefreshIntervalMs < MinGitRefreshMs || g.RefreshIntervalMs > MaxGitRefreshMs {
		g.RefreshIntervalMs = min(MaxGitRefreshMs, max(MinGitRefreshMs, g.RefreshIntervalMs))
		rep.add("the git refresh interval in the settings was brought within its limits")
	}
	ids := map[string]bool{}
	for i := range g.IdentityProfiles {
		p := &g.IdentityProfiles[i]
		if p.ID == "" || ids[p.ID] {
			p.ID = newID(IdentityProfilePrefix)
			rep.add("identity profiles in the settings without an id or with a repeated one got a new id")
		}
		ids[p.ID] = true
	}
	if g.ActiveIdentityProfileID != nil && !ids[*g.ActiveIdentityProfileID] {
		g.ActiveIdentityProfileID = nil
		rep.add("the active identity profile in the settings did not exist; none is active")
	}
}

// repairLengths cuts over-long fields to their bound; over-long paths are
// cleared (a cut path names another file).
func (s *State) repairLengths(rep *repairLog) {
	s.eachBounded(func(f lengthField) {
		if !overLong(*f.v, f.limit) {
			return
		}
		if f.path {
			*f.v = ""
			rep.add(fmt.Sprintf("%s longer than %d characters were cleared", f.kind, f.limit))
			return
		}
		*f.v = truncate(*f.v, f.limit)
		rep.add(fmt.Sprintf("%s longer than %d characters were shortened", f.kind, f.limit))
	})
	for i := range s.WorkspaceTabs { // cleared paths: none rather than ""
		t := &s.WorkspaceTabs[i]
		for _, p := range []**string{&t.ActiveFilePath, &t.SelectedGitFilePath, &t.TerminalID} {
			if *p != nil && **p == "" {
				*p = nil
			}
		}
		t.OpenFilePaths = slices.DeleteFunc(t.OpenFilePaths, func(p string) bool { return p == "" })
	}
}

// repairLog collects repair notes, one per kind, in order, with a count.
type repairLog struct {
	order []string
	count map[string]int
}

func (r *repairLog) add(note string) {
	if r.count == nil {
		r.count = map[string]int{}
	}
	if r.count[note] == 0 {
		r.order = append(r.order, note)
	}
	r.count[note]++
}

// list returns the notes, "(×n)" after those that happened n > 1 times.
func (r *repairLog) list() []string {
	out := make([]string, len(r.order))
	for i, n := range r.order {
		out[i] = n
		if c := r.count[n]; c > 1 {
			out[i] = fmt.Sprintf("%s (×%d)", n, c)
		}
	}
	return out
}

// describeGoType names the JSON type a Go type takes.
func describeGoType(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object"
}
