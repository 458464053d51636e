package state

import (
	"fmt"
	"unicode/utf8"
)

// Bounds of state.json and of its free-text fields. Tools refuse longer
// values (their inputs carry the same maxLength); [State.Validate] refuses
// them in an update; values that come from pages (a browser tab's title,
// URL, favicon and error text) are cut to size instead, and a loaded file
// has over-long fields cut (paths cleared) as a repair. Lengths count
// characters (Unicode code points), as JSON Schema's maxLength does.
const (
	// MaxFileBytes is the largest state.json [Open] reads; a larger one is
	// set aside (state.json.too-large-<ts>) and the store starts from
	// defaults.
	MaxFileBytes = 64 << 20
	// MaxNameLength bounds space names and identity profile labels, names
	// and emails.
	MaxNameLength = 256
	// MaxTitleLength bounds tab titles (a longer page title is cut).
	MaxTitleLength = 1024
	// MaxPathLength bounds folders and file paths (PATH_MAX).
	MaxPathLength = 4096
	// MaxColorLength bounds a space's CSS color.
	MaxColorLength = 64
	// MaxIDLength bounds the ids tools take (terminal sessions, tabs,
	// spaces, profiles).
	MaxIDLength = 256
	// MaxOpenFiles bounds an editor tab's open files.
	MaxOpenFiles = 1000
	// MaxURLLength bounds a browser tab's URL (a longer one is cut).
	MaxURLLength = 16 << 10
	// MaxFaviconLength bounds a browser tab's favicon URL; a longer one (a
	// large data: URL) is dropped, since a cut one is no image.
	MaxFaviconLength = 64 << 10
	// MaxErrorTextLength bounds a browser tab's error text (cut).
	MaxErrorTextLength = 4096
)

// overLong reports whether s has more than n characters.
func overLong(s string, n int) bool {
	return len(s) > n && utf8.RuneCountInString(s) > n
}

// truncate returns s cut to at most n characters.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// ClampPageFields cuts the fields of t that mirror its page to their
// bounds: title, URL and error text are shortened, a favicon over its bound
// is dropped. It reports whether anything changed.
func (t *BrowserTab) ClampPageFields() bool {
	changed := false
	for _, f := range []struct {
		v *string
		n int
	}{{&t.Title, MaxTitleLength}, {&t.URL, MaxURLLength}, {&t.ErrorText, MaxErrorTextLength}} {
		if overLong(*f.v, f.n) {
			*f.v = truncate(*f.v, f.n)
			changed = true
		}
	}
	if overLong(t.Favicon, MaxFaviconLength) {
		t.Favicon = ""
		changed = true
	}
	return changed
}

// lengthField is one bounded free-text field of a state, seen by
// [State.eachBounded].
type lengthField struct {
	what  string  // "space space_1 name", for messages
	kind  string  // "space names", for repair notes
	v     *string // the value
	limit int
	path  bool // a path: a loaded over-long one is cleared, not cut
}

// eachBounded calls fn with every bounded field that tools set (the page
// fields of browser tabs are clamped instead, see ClampPageFields). Open
// file paths beyond MaxOpenFiles are not fields: see validateLengths.
func (s *State) eachBounded(fn func(f lengthField)) {
	for i := range s.Spaces {
		sp := &s.Spaces[i]
		fn(lengthField{"space " + sp.ID + " name", "space names", &sp.Name, MaxNameLength, false})
		fn(lengthField{"space " + sp.ID + " color", "space colors", &sp.Color, MaxColorLength, false})
		fn(lengthField{"space " + sp.ID + " cwd", "space folders", &sp.Cwd, MaxPathLength, true})
	}
	for i := range s.BrowserTabs {
		t := &s.BrowserTabs[i]
		fn(lengthField{"browser tab " + t.ID + " pluginId", "plugin ids", &t.PluginID, MaxIDLength, true})
	}
	for i := range s.WorkspaceTabs {
		t := &s.WorkspaceTabs[i]
		fn(lengthField{"workspace tab " + t.ID + " title", "tab titles", &t.Title, MaxTitleLength, false})
		fn(lengthField{"workspace tab " + t.ID + " cwd", "tab folders", &t.Cwd, MaxPathLength, true})
		for _, p := range []*string{t.ActiveFilePath, t.SelectedGitFilePath} {
			if p != nil {
				fn(lengthField{"workspace tab " + t.ID + " file path", "file paths", p, MaxPathLength, true})
			}
		}
		for k := range t.OpenFilePaths {
			fn(lengthField{"workspace tab " + t.ID + " open file path", "file paths", &t.OpenFilePaths[k], MaxPathLength, true})
		}
		if t.TerminalID != nil {
			fn(lengthField{"workspace tab " + t.ID + " terminalId", "terminal ids", t.TerminalID, MaxIDLength, true})
		}
	}
	for i := range s.Projects {
		p := &s.Projects[i]
		fn(lengthField{"project " + p.ID + " name", "project names", &p.Name, MaxNameLength, false})
		fn(lengthField{"project " + p.ID + " cwd", "project folders", &p.Cwd, MaxPathLength, true})
	}
	for i := range s.Settings.Git.IdentityProfiles {
		p := &s.Settings.Git.IdentityProfiles[i]
		for _, f := range []struct {
			name string
			v    *string
		}{{"label", &p.Label}, {"name", &p.Name}, {"email", &p.Email}} {
			fn(lengthField{"identity profile " + p.ID + " " + f.name, "identity profile fields", f.v, MaxNameLength, false})
		}
	}
}

// validateLengths refuses a field over its bound, naming the field and the
// bound (never the value).
func (s *State) validateLengths() error {
	var err error
	s.eachBounded(func(f lengthField) {
		if err == nil && overLong(*f.v, f.limit) {
			err = fmt.Errorf("%s is longer than %d characters", f.what, f.limit)
		}
	})
	if err != nil {
		return err
	}
	for _, t := range s.WorkspaceTabs {
		if len(t.OpenFilePaths) > MaxOpenFiles {
			return fmt.Errorf("workspace tab %s has %d open files, more than %d", t.ID, len(t.OpenFilePaths), MaxOpenFiles)
		}
	}
	return nil
}
