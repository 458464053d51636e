package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
)

// files.go: what the file commands (read, write, rm) do beyond mapping
// their words onto a tool.

// stdinTextParams builds the parameters of a command whose --stdin is raw
// text (write): the words as usual, and standard input as the parameter
// spec.StdinText. On failure it prints the error and returns nil and the
// exit code.
func (r *runner) stdinTextParams(rest []string, spec Command) (Params, int) {
	p, err := BuildParams(r.a, rest, BuildOptions{Slots: spec.Slots, ArrayKeys: spec.ArrayKeys, Command: `"` + spec.Name + `"`, Reserved: isReserved})
	if err != nil {
		return nil, r.p.usage("%s", err)
	}
	if _, given := p[spec.StdinText]; given {
		return nil, r.p.usage("give the %s of %q as an argument or on standard input with --stdin, not both.", spec.StdinText, spec.Name)
	}
	if r.s.In == nil {
		return nil, r.p.usage("--stdin: no standard input")
	}
	b, err := io.ReadAll(io.LimitReader(r.s.In, protocol.MaxFrameBytes+1))
	switch {
	case err != nil:
		return nil, r.p.usage("--stdin: %v", err)
	case len(b) > protocol.MaxFrameBytes:
		return nil, r.p.usage("--stdin: the %s is over %d MiB, more than one call can carry.", spec.StdinText, protocol.MaxFrameBytes>>20)
	case !utf8.Valid(b):
		return nil, r.p.usage("--stdin: standard input is not UTF-8 text; %q writes text files only.", spec.Name)
	}
	p[spec.StdinText] = string(b)
	return p, exitOK
}

// renderFileContent prints content.content as it is; a truncated read
// says so on stderr.
func (r *runner) renderFileContent(content json.RawMessage) (string, bool) {
	var c struct {
		Content   *string `json:"content"`
		Truncated bool    `json:"truncated"`
		Bytes     int64   `json:"bytes"`
		RelPath   string  `json:"relPath"`
	}
	if json.Unmarshal(content, &c) != nil || c.Content == nil {
		return "", false
	}
	if c.Truncated && !r.p.quiet {
		r.p.stderr("(%s is %d bytes: this is the first %d; the file tools read at most 2 MB)", c.RelPath, c.Bytes, len(*c.Content))
	}
	if *c.Content == "" {
		return "", false // an empty file: "ok" says the read worked
	}
	return *c.Content, true
}

// unconfirmed is a destructive command run without --yes: it says what
// the command would remove and how to confirm, calls nothing and exits 1.
func (r *runner) unconfirmed(spec Command, p Params) int {
	if spec.Tool != "workspace_delete_path" {
		r.p.stderr("meith %s would delete stored data (%s); nothing was deleted.", spec.Name, strings.ToLower(spec.Summary[:1])+spec.Summary[1:])
		r.p.stderr("To delete it, run the same command with --yes.")
		return exitFailure
	}
	cwd, path := paramString(p["cwd"]), paramString(p["path"])
	if cwd == "" || path == "" {
		return r.p.usage("%q needs <cwd> and <path>: meith %s <cwd> <path> --yes", spec.Name, spec.Name)
	}
	target := localPath(localPath("", cwd), path)
	what, err := describePath(target, path)
	if err != nil {
		r.p.stderr("error: %s", err)
		return exitFailure
	}
	r.p.stderr("meith %s would move %s to meith's trash; nothing was deleted.", spec.Name, what)
	r.p.stderr("To delete it, run: meith %s %s %s --yes   (\"meith undo %s %s\" brings it back)",
		spec.Name, shellQuote(cwd), shellQuote(path), shellQuote(cwd), shellQuote(path))
	return exitFailure
}

// paramString is a parameter's text, however the command line gave it.
func paramString(v any) string {
	switch v := v.(type) {
	case word:
		return string(v)
	case string:
		return v
	case json.RawMessage:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return ""
}

// localPath resolves p as the runtime would for this process: "~" is the
// home folder, a relative path is relative to base (or the working
// directory).
func localPath(base, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if base == "" {
		base, _ = os.Getwd()
	}
	return filepath.Join(base, p)
}

// maxDescribed bounds the entries describePath counts in a folder.
const maxDescribed = 100_000

// describePath says what is at abs, for a person ("the folder src (3
// files, 1 folder, 1.2 KB)"); shown is the path as they wrote it.
func describePath(abs, shown string) (string, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("no such file or folder: %s", shown)
		}
		return "", err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(abs)
		return fmt.Sprintf("the symbolic link %s (to %s; what it points to stays)", shown, to), nil
	case !fi.IsDir():
		return fmt.Sprintf("the file %s (%s)", shown, bytesText(fi.Size())), nil
	}
	var nfiles, ndirs int
	var size int64
	more := false
	filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == abs {
			return nil
		}
		if nfiles+ndirs >= maxDescribed {
			more = true
			return filepath.SkipAll
		}
		if d.IsDir() {
			ndirs++
		} else {
			nfiles++
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	plus := ""
	if more {
		plus = " or more"
	}
	return fmt.Sprintf("the folder %s (%s%s, %s%s, %s%s)", shown, plural(nfiles, "file"), plus, plural(ndirs, "folder"), plus, bytesText(size), plus), nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// bytesText writes a size for people.
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./~+@%:,=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
