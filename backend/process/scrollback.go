package process

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// A terminal's scrollback outlives the runtime: [Manager.Shutdown] saves
// each terminal's output ring (its newest savedScrollbackBytes, cut at a
// line start; the newest terminals first, savedScrollbackTotal in all) to
// Options.ScrollbackDir, one file per terminal (0600, written atomically).
// The next start reads them (a file that cannot be read as one is removed)
// and a terminal started with [TermSpec.RestoreFrom] naming one of them
// begins with that output and [SessionEndedNote] above its new shell; its
// file is then removed (the new terminal's own scrollback carries the
// output on), and until the runtime ends another terminal restoring the
// same one (a second window on the same tab) begins with it too. A saved
// scrollback nobody restored is saved again at the next shutdown; closing
// its terminal id before that discards it. The content is never logged.

// SessionEndedNote is the line a restored terminal shows between the old
// session's output and the new shell.
const SessionEndedNote = "This terminal's session ended when meith quit."

// scrollbackExt is the file name suffix of a saved scrollback.
const scrollbackExt = ".scrollback"

// maxScrollbackHeader bounds a saved scrollback's header line.
const maxScrollbackHeader = 4 << 10

// Bounds of the saved scrollback (tests lower them).
var (
	savedScrollbackBytes = 256 << 10 // per terminal
	savedScrollbackTotal = 4 << 20   // all terminals
)

// scrollbackVersion is the version of the file format: a JSON header line,
// then the raw output.
const scrollbackVersion = 1

// terminalIDPattern is what a terminal id looks like (a safe file name).
var terminalIDPattern = regexp.MustCompile(`^term_[A-Za-z0-9]{1,64}$`)

// scrollbackHeader is the first line of a saved scrollback.
type scrollbackHeader struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	Cwd     string `json:"cwd"`
	Shell   string `json:"shell"`
	SavedAt int64  `json:"savedAt"` // Unix milliseconds
}

// savedScrollback is a terminal's output kept from an earlier run.
type savedScrollback struct {
	scrollbackHeader
	output string
	// restored says a terminal of this run began with it (its file is
	// gone; it is not saved again).
	restored bool
}

// restoreReset ends what the old session may have left on in the
// terminal (the alternate screen, mouse reporting, bracketed paste,
// application cursor keys, hidden cursor, colours) before the note. The
// alternate screen is left with 1047, not 1049: 1049 also restores a saved
// cursor, which would move the note up over the old output.
const restoreReset = "\x1b[?1047l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b[?25h\x1b[0m"

// restoredText is what a restored terminal begins with.
func restoredText(output string) string {
	return output + restoreReset + "\r\n\x1b[2m── " + SessionEndedNote + " A new shell: ──\x1b[0m\r\n"
}

// scrollbackTail is the newest max bytes of s, starting at a line start
// when there is a line break in them, else at a rune start.
func scrollbackTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// loadScrollback reads the saved scrollbacks of the ScrollbackDir (the
// newest first, within the bounds); files it cannot use are removed.
func (m *Manager) loadScrollback() {
	dir := m.opts.ScrollbackDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			m.logf("warn", "terminal scrollback: %v", err)
		}
		return
	}
	var list []savedScrollback
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, scrollbackExt) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		s, err := readScrollback(path, strings.TrimSuffix(name, scrollbackExt))
		if err != nil {
			m.logf("warn", "terminal scrollback %s is unreadable, removed: %v", name, err)
			_ = os.Remove(path)
			continue
		}
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b savedScrollback) int { return cmp.Compare(b.SavedAt, a.SavedAt) })
	total := 0
	for _, s := range list {
		if total+len(s.output) > savedScrollbackTotal {
			_ = os.Remove(filepath.Join(dir, s.ID+scrollbackExt))
			continue
		}
		total += len(s.output)
		m.saved[s.ID] = s
	}
}

// readScrollback reads one saved scrollback, bounded.
func readScrollback(path, id string) (savedScrollback, error) {
	if !terminalIDPattern.MatchString(id) {
		return savedScrollback{}, errors.New("not a terminal's file name")
	}
	f, err := os.Open(path)
	if err != nil {
		return savedScrollback{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(maxScrollbackHeader+savedScrollbackBytes+1)))
	if err != nil {
		return savedScrollback{}, err
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || nl > maxScrollbackHeader {
		return savedScrollback{}, errors.New("no header line")
	}
	var s savedScrollback
	if err := json.Unmarshal(b[:nl], &s.scrollbackHeader); err != nil {
		return savedScrollback{}, fmt.Errorf("header: %w", err)
	}
	switch {
	case s.Version != scrollbackVersion:
		return savedScrollback{}, fmt.Errorf("version %d, want %d", s.Version, scrollbackVersion)
	case s.ID != id:
		return savedScrollback{}, errors.New("the header names another terminal")
	case len(b)-nl-1 > savedScrollbackBytes:
		return savedScrollback{}, fmt.Errorf("more than %d bytes of output", savedScrollbackBytes)
	}
	s.output = string(b[nl+1:])
	return s, nil
}

// restoreSaved returns the saved scrollback of an earlier run's terminal
// id for a new terminal to begin with, and removes its file the first time.
func (m *Manager) restoreSaved(id string) (savedScrollback, bool) {
	m.mu.Lock()
	s, ok := m.saved[id]
	first := ok && !s.restored
	if first {
		s.restored = true
		m.saved[id] = s
	}
	m.mu.Unlock()
	if first {
		m.removeSavedFile(id)
	}
	return s, ok
}

// discardSaved forgets the saved scrollback of an earlier run's terminal
// id (its tab was closed); false when there is none.
func (m *Manager) discardSaved(id string) bool {
	m.mu.Lock()
	s, ok := m.saved[id]
	if ok && !s.restored {
		delete(m.saved, id)
	}
	m.mu.Unlock()
	if ok && !s.restored {
		m.removeSavedFile(id)
	}
	return ok
}

func (m *Manager) removeSavedFile(id string) {
	if err := os.Remove(filepath.Join(m.opts.ScrollbackDir, id+scrollbackExt)); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.logf("warn", "terminal scrollback: %v", err)
	}
}

// saveScrollback writes the terminals' scrollback (the newest terminals
// first), then the saved ones nobody restored, within the bounds, and
// removes every other saved file.
func (m *Manager) saveScrollback(terms []*termProc) error {
	dir := m.opts.ScrollbackDir
	if dir == "" || m.foreignOwner != 0 {
		return nil
	}
	now := time.Now().UnixMilli()
	var list []savedScrollback
	for _, t := range slices.Backward(terms) {
		text, _ := t.log.text()
		if text == "" {
			continue
		}
		info := t.info()
		list = append(list, savedScrollback{
			scrollbackHeader: scrollbackHeader{Version: scrollbackVersion, ID: t.id, Cwd: info.Cwd, Shell: info.Shell, SavedAt: now},
			output:           scrollbackTail(text, savedScrollbackBytes),
		})
	}
	m.mu.Lock()
	var kept []savedScrollback
	for _, s := range m.saved {
		if !s.restored {
			kept = append(kept, s)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(kept, func(a, b savedScrollback) int { return cmp.Compare(b.SavedAt, a.SavedAt) })
	list = append(list, kept...)

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save terminal scrollback: %w", err)
	}
	keep := map[string]bool{}
	total := 0
	var errs []error
	for _, s := range list {
		if total+len(s.output) > savedScrollbackTotal {
			continue
		}
		header, err := json.Marshal(s.scrollbackHeader)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		data := make([]byte, 0, len(header)+1+len(s.output))
		data = append(append(append(data, header...), '\n'), s.output...)
		name := s.ID + scrollbackExt
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			errs = append(errs, fmt.Errorf("save terminal scrollback: %w", err))
			continue
		}
		total += len(s.output)
		keep[name] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), scrollbackExt) && !keep[e.Name()] {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	m.logf("info", "saved the scrollback of %d terminals (%d bytes)", len(keep), total)
	return errors.Join(errs...)
}
