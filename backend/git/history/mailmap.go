package history

import (
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/git/repo"
)

// mailmap maps commit author names and emails to canonical ones, from the
// worktree's .mailmap and the file named by mailmap.file (git blame applies
// it to the authors it prints).
type mailmap struct {
	byEmail map[string]*mailmapEntry
}

type mailmapEntry struct {
	name, email string               // replacement for any name
	byName      map[string][2]string // lower-cased old name → replacement
}

// loadMailmap reads the repository's mailmap; a missing file is an empty
// map, and so is one that is not a regular file or is too large. The
// worktree's .mailmap is read without following a symlink, as git does.
func loadMailmap(r *repo.Repo) *mailmap {
	mm := &mailmap{byEmail: map[string]*mailmapEntry{}}
	if data, err := repo.ReadRegularNoFollow(filepath.Join(r.Root, ".mailmap"), repo.MaxTextFileBytes); err == nil {
		mm.parse(string(data))
	}
	if cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo); err == nil {
		if f, ok := cfg.get("mailmap", "", "file"); ok && f != "" {
			if data, err := repo.ReadRegular(expandHome(f), repo.MaxTextFileBytes); err == nil {
				mm.parse(string(data))
			}
		}
	}
	return mm
}

// parse reads lines of the forms
//
//	Proper Name <commit@email>
//	<proper@email> <commit@email>
//	Proper Name <proper@email> <commit@email>
//	Proper Name <proper@email> Commit Name <commit@email>
func (mm *mailmap) parse(data string) {
	for _, line := range strings.Split(data, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name1, email1, rest, ok := parseNameEmail(line)
		if !ok {
			continue
		}
		name2, email2, _, ok2 := parseNameEmail(rest)
		newName, newEmail, oldName, oldEmail := name1, email1, "", ""
		if ok2 {
			oldName, oldEmail = name2, email2
		} else {
			oldEmail, newEmail = email1, ""
		}
		key := strings.ToLower(oldEmail)
		e := mm.byEmail[key]
		if e == nil {
			e = &mailmapEntry{byName: map[string][2]string{}}
			mm.byEmail[key] = e
		}
		if oldName == "" {
			if newName != "" {
				e.name = newName
			}
			if newEmail != "" {
				e.email = newEmail
			}
		} else {
			e.byName[strings.ToLower(oldName)] = [2]string{newName, newEmail}
		}
	}
}

// parseNameEmail reads "Name <email>" from the front of s.
func parseNameEmail(s string) (name, email, rest string, ok bool) {
	lt := strings.IndexByte(s, '<')
	if lt < 0 {
		return "", "", "", false
	}
	gt := strings.IndexByte(s[lt:], '>')
	if gt < 0 {
		return "", "", "", false
	}
	return strings.TrimSpace(s[:lt]), s[lt+1 : lt+gt], s[lt+gt+1:], true
}

// lookup maps a name and email.
func (mm *mailmap) lookup(name, email string) (string, string) {
	if mm == nil {
		return name, email
	}
	e := mm.byEmail[strings.ToLower(email)]
	if e == nil {
		return name, email
	}
	if repl, ok := e.byName[strings.ToLower(name)]; ok {
		if repl[0] != "" {
			name = repl[0]
		}
		if repl[1] != "" {
			email = repl[1]
		}
		return name, email
	}
	if e.name != "" {
		name = e.name
	}
	if e.email != "" {
		email = e.email
	}
	return name, email
}
