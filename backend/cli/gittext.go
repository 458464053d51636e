package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file renders the git tools' results as git prints them: status
// (long and short format), diff (a unified patch "git apply" takes), log
// (one line per commit, or --format) and blame (git blame's default).

// notRepoMessage is git's own words for a folder outside any repository;
// exitNotRepo its exit status.
const (
	notRepoMessage = "fatal: not a git repository (or any of the parent directories): .git"
	exitNotRepo    = 128
)

// statusFile is one entry of git_status's files.
type statusFile struct {
	Path           string `json:"path"`
	OriginalPath   string `json:"originalPath"`
	Status         string `json:"status"`
	IndexStatus    string `json:"indexStatus"`
	WorktreeStatus string `json:"worktreeStatus"`
	Staged         bool   `json:"staged"`
	Unstaged       bool   `json:"unstaged"`
	Untracked      bool   `json:"untracked"`
}

// statusResult is git_status's result.
type statusResult struct {
	IsRepo       bool         `json:"isRepo"`
	Root         *string      `json:"root"`
	Branch       string       `json:"branch"`
	Detached     bool         `json:"detached"`
	Head         string       `json:"head"`
	Upstream     string       `json:"upstream"`
	UpstreamGone bool         `json:"upstreamGone"`
	Ahead        int          `json:"ahead"`
	Behind       int          `json:"behind"`
	Files        []statusFile `json:"files"`
}

// pathView shows repository paths relative to the folder the command
// looked from, as git does.
type pathView struct {
	root, base string
}

// newPathView relates root (the worktree) to base (the command's folder);
// a base that cannot be related leaves paths repository-relative.
func newPathView(root, base string) pathView {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if b, err := filepath.EvalSymlinks(base); err == nil {
		base = b
	}
	return pathView{root: root, base: base}
}

// show returns p (slash-separated, repository-relative) relative to the
// base folder.
func (v pathView) show(p string) string {
	if v.root == "" || v.base == "" {
		return p
	}
	rel, err := filepath.Rel(v.base, filepath.Join(v.root, filepath.FromSlash(p)))
	if err != nil {
		return p
	}
	rel = filepath.ToSlash(rel)
	if strings.HasSuffix(p, "/") && !strings.HasSuffix(rel, "/") {
		rel += "/"
	}
	return rel
}

// statusOptions are the CLI's own flags of "meith status".
type statusOptions struct {
	short  bool // -s, --short: "XY path" lines
	branch bool // -b, --branch: the "## branch" header in the short format
}

// longLabels are git's labels of a change in the long format, padded to
// git's width (the longest, "typechange:", plus one).
var longLabels = map[string]string{
	"M": "modified:   ",
	"A": "new file:   ",
	"D": "deleted:    ",
	"R": "renamed:    ",
	"C": "copied:     ",
	"T": "typechange: ",
}

// conflictLabels are git's labels of an unmerged path, by its XY.
var conflictLabels = map[string]string{
	"DD": "both deleted:    ",
	"AU": "added by us:     ",
	"UD": "deleted by them: ",
	"UA": "added by them:   ",
	"DU": "deleted by us:   ",
	"AA": "both added:      ",
	"UU": "both modified:   ",
}

// renderStatus writes git_status's result like "git status" (or "git status
// --short"). notRepo is set when the folder is outside a repository.
func renderStatus(content json.RawMessage, o statusOptions, base string, c palette) (text string, notRepo, ok bool) {
	var s statusResult
	if json.Unmarshal(content, &s) != nil {
		return "", false, false
	}
	if !s.IsRepo {
		return "", true, true
	}
	root := ""
	if s.Root != nil {
		root = *s.Root
	}
	v := newPathView(root, base)
	if o.short {
		return shortStatus(s, o, v, c), false, true
	}
	return longStatus(s, v, c), false, true
}

// longStatus is git's long format, with meith's commands in the hints.
func longStatus(s statusResult, v pathView, c palette) string {
	var b strings.Builder
	if s.Detached {
		fmt.Fprintf(&b, "%s\n", c.paint(sgrRed, "HEAD detached at "+s.Branch))
	} else {
		fmt.Fprintf(&b, "On branch %s\n", s.Branch)
	}
	if s.Upstream != "" && !s.Detached {
		up := "'" + s.Upstream + "'"
		switch {
		case s.UpstreamGone:
			fmt.Fprintf(&b, "Your branch is based on %s, but the upstream is gone.\n", up)
		case s.Ahead > 0 && s.Behind > 0:
			fmt.Fprintf(&b, "Your branch and %s have diverged,\nand have %d and %d different commits each, respectively.\n", up, s.Ahead, s.Behind)
		case s.Ahead > 0:
			fmt.Fprintf(&b, "Your branch is ahead of %s by %s.\n", up, plural(s.Ahead, "commit"))
		case s.Behind > 0:
			fmt.Fprintf(&b, "Your branch is behind %s by %s, and can be fast-forwarded.\n", up, plural(s.Behind, "commit"))
		default:
			fmt.Fprintf(&b, "Your branch is up to date with %s.\n", up)
		}
		b.WriteString("\n")
	}
	if s.Head == "" {
		if s.Upstream == "" || s.Detached {
			b.WriteString("\n")
		}
		b.WriteString("No commits yet\n\n")
	}
	var staged, unstaged, untracked, conflicted []statusFile
	for _, f := range s.Files {
		switch {
		case f.Status == "conflicted":
			conflicted = append(conflicted, f)
			continue
		case f.Untracked:
			untracked = append(untracked, f)
			continue
		}
		if f.Staged {
			staged = append(staged, f)
		}
		if f.Unstaged {
			unstaged = append(unstaged, f)
		}
	}
	if len(conflicted) > 0 {
		b.WriteString("You have unmerged paths.\n  (fix conflicts and run \"meith commit\")\n\n")
	}
	section := func(title string, hints []string) {
		b.WriteString(title + "\n")
		for _, h := range hints {
			b.WriteString("  (" + h + ")\n")
		}
	}
	if len(staged) > 0 {
		section("Changes to be committed:", []string{`use "meith unstage <file>..." to unstage`})
		for _, f := range staged {
			what := v.show(f.Path)
			if f.OriginalPath != "" {
				what = v.show(f.OriginalPath) + " -> " + what
			}
			fmt.Fprintf(&b, "\t%s\n", c.paint(sgrGreen, labelOf(longLabels, f.IndexStatus)+what))
		}
		b.WriteString("\n")
	}
	if len(conflicted) > 0 {
		section("Unmerged paths:", []string{`use "meith stage <file>..." to mark resolution`})
		for _, f := range conflicted {
			fmt.Fprintf(&b, "\t%s\n", c.paint(sgrRed, labelOf(conflictLabels, f.IndexStatus+f.WorktreeStatus)+v.show(f.Path)))
		}
		b.WriteString("\n")
	}
	if len(unstaged) > 0 {
		section("Changes not staged for commit:", []string{`use "meith stage <file>..." to update what will be committed`,
			`use "meith restore <file>..." to discard changes in working directory`})
		for _, f := range unstaged {
			fmt.Fprintf(&b, "\t%s\n", c.paint(sgrRed, labelOf(longLabels, f.WorktreeStatus)+v.show(f.Path)))
		}
		b.WriteString("\n")
	}
	if len(untracked) > 0 {
		section("Untracked files:", []string{`use "meith stage <file>..." to include in what will be committed`})
		for _, f := range untracked {
			fmt.Fprintf(&b, "\t%s\n", c.paint(sgrRed, v.show(f.Path)))
		}
		b.WriteString("\n")
	}
	switch {
	case len(staged) > 0:
	case len(unstaged) > 0 || len(conflicted) > 0:
		b.WriteString(`no changes added to commit (use "meith stage" and "meith commit")` + "\n")
	case len(untracked) > 0:
		b.WriteString(`nothing added to commit but untracked files present (use "meith stage" to track)` + "\n")
	case s.Head == "":
		b.WriteString(`nothing to commit (create/copy files and use "meith stage" to track)` + "\n")
	default:
		b.WriteString("nothing to commit, working tree clean\n")
	}
	return b.String()
}

// labelOf returns the label of letter, or "unknown:" padded.
func labelOf(labels map[string]string, letter string) string {
	if l, ok := labels[letter]; ok {
		return l
	}
	return "unknown:    "
}

// shortStatus is "git status --short" (with --branch, its "## " header).
func shortStatus(s statusResult, o statusOptions, v pathView, c palette) string {
	var b strings.Builder
	if o.branch {
		b.WriteString("## ")
		switch {
		case s.Detached:
			b.WriteString(c.paint(sgrRed, "HEAD (no branch)"))
		case s.Head == "":
			b.WriteString("No commits yet on " + c.paint(sgrGreen, s.Branch))
		default:
			b.WriteString(c.paint(sgrGreen, s.Branch))
		}
		if s.Upstream != "" && !s.Detached {
			b.WriteString("..." + c.paint(sgrRed, s.Upstream))
			switch {
			case s.UpstreamGone:
				b.WriteString(" [gone]")
			case s.Ahead > 0 && s.Behind > 0:
				fmt.Fprintf(&b, " [ahead %s, behind %s]", c.paint(sgrGreen, strconv.Itoa(s.Ahead)), c.paint(sgrRed, strconv.Itoa(s.Behind)))
			case s.Ahead > 0:
				fmt.Fprintf(&b, " [ahead %s]", c.paint(sgrGreen, strconv.Itoa(s.Ahead)))
			case s.Behind > 0:
				fmt.Fprintf(&b, " [behind %s]", c.paint(sgrRed, strconv.Itoa(s.Behind)))
			}
		}
		b.WriteString("\n")
	}
	letter := func(l string) string {
		if l == "." || l == "" {
			return " "
		}
		return l
	}
	for _, f := range s.Files { // tracked paths first, then untracked ones, as git
		if f.Untracked {
			continue
		}
		what := v.show(f.Path)
		if f.OriginalPath != "" {
			what = v.show(f.OriginalPath) + " -> " + what
		}
		switch {
		case f.Status == "conflicted":
			fmt.Fprintf(&b, "%s %s\n", c.paint(sgrRed, f.IndexStatus+f.WorktreeStatus), what)
		default:
			fmt.Fprintf(&b, "%s%s %s\n", c.paint(sgrGreen, letter(f.IndexStatus)), c.paint(sgrRed, letter(f.WorktreeStatus)), what)
		}
	}
	for _, f := range s.Files {
		if f.Untracked {
			fmt.Fprintf(&b, "%s %s\n", c.paint(sgrRed, "??"), v.show(f.Path))
		}
	}
	return b.String()
}

// diffFile is one entry of git_diff's files.
type diffFile struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary"`
	Diff      string `json:"diff"`
	Large     bool   `json:"large"`
}

// diffResult is git_diff's result.
type diffResult struct {
	IsRepo bool       `json:"isRepo"`
	Files  []diffFile `json:"files"`
}

// renderDiff writes git_diff's result as one unified patch (the files'
// patches in order), or, when no patch was asked for (numstat), "added
// deleted path" lines like "git diff --numstat". skipped lists the files
// whose patch the tool left out (large untracked files).
func renderDiff(content json.RawMessage, numstat bool, c palette) (text string, skipped []string, notRepo, ok bool) {
	var d diffResult
	if json.Unmarshal(content, &d) != nil {
		return "", nil, false, false
	}
	if !d.IsRepo {
		return "", nil, true, true
	}
	var b strings.Builder
	for _, f := range d.Files {
		switch {
		case numstat && f.Binary:
			fmt.Fprintf(&b, "-\t-\t%s\n", f.Path)
		case numstat:
			fmt.Fprintf(&b, "%d\t%d\t%s\n", f.Additions, f.Deletions, f.Path)
		case f.Large:
			skipped = append(skipped, f.Path)
		case f.Diff != "":
			writeColoredPatch(&b, f.Diff, c)
		}
	}
	return b.String(), skipped, false, true
}

// writeColoredPatch copies patch, colouring it like git when c is on:
// headers bold, hunk ranges cyan, removed lines red, added lines green.
func writeColoredPatch(b *strings.Builder, patch string, c palette) {
	if !c.on {
		b.WriteString(patch)
		if !strings.HasSuffix(patch, "\n") {
			b.WriteString("\n")
		}
		return
	}
	inHunk := false
	for _, line := range strings.SplitAfter(patch, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(body, "diff --git "):
			inHunk = false
			b.WriteString(c.paint(sgrBold, body))
		case strings.HasPrefix(body, "@@"):
			inHunk = true
			rng, rest := body, ""
			if i := strings.Index(body[2:], "@@"); i >= 0 {
				rng, rest = body[:i+4], body[i+4:]
			}
			b.WriteString(c.paint(sgrCyan, rng) + rest)
		case inHunk && strings.HasPrefix(body, "-"):
			b.WriteString(c.paint(sgrRed, body))
		case inHunk && strings.HasPrefix(body, "+"):
			b.WriteString(c.paint(sgrGreen, body))
		case inHunk:
			b.WriteString(body)
		default:
			b.WriteString(c.paint(sgrBold, body))
		}
		b.WriteString("\n")
	}
}

// logEntry is one entry of git_log's result.
type logEntry struct {
	Hash        string `json:"hash"`
	ShortHash   string `json:"shortHash"`
	AuthorName  string `json:"authorName"`
	AuthorEmail string `json:"authorEmail"`
	Date        string `json:"date"`
	Subject     string `json:"subject"`
	Refs        string `json:"refs"`
}

// Log formats of --format besides a "%h %s" template.
const (
	logOneline = "oneline"
	logMedium  = "medium"
)

// renderLog writes git_log's result: "oneline" (the default) is git log
// --oneline ("abc1234 (HEAD -> main, tag: v1) subject"), "medium" is git
// log's default, and any other format is a template of git's placeholders
// %H %h %an %ae %ad %aI %s %d %D %n %% (a "format:" or "tformat:" prefix is
// allowed).
func renderLog(content json.RawMessage, format string, c palette) (string, bool) {
	var list []logEntry
	if json.Unmarshal(content, &list) != nil {
		return "", false
	}
	var b strings.Builder
	for i, e := range list {
		switch format {
		case "", logOneline:
			b.WriteString(c.paint(sgrYellow, e.ShortHash))
			if e.Refs != "" {
				b.WriteString(" " + decoration(e.Refs, c))
			}
			b.WriteString(" " + e.Subject + "\n")
		case logMedium:
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(c.paint(sgrYellow, "commit "+e.Hash))
			if e.Refs != "" {
				b.WriteString(" " + decoration(e.Refs, c))
			}
			fmt.Fprintf(&b, "\nAuthor: %s <%s>\nDate:   %s\n\n    %s\n", e.AuthorName, e.AuthorEmail, gitDate(e.Date), e.Subject)
		default:
			b.WriteString(expandLogFormat(format, e, c) + "\n")
		}
	}
	return b.String(), true
}

// showResult is what renderShow reads of git_show's result.
type showResult struct {
	Hash      string   `json:"hash"`
	ShortHash string   `json:"shortHash"`
	Parents   []string `json:"parents"`
	Refs      string   `json:"refs"`
	Message   string   `json:"message"`
	Author    struct {
		Name  string `json:"name"`
		Email string `json:"email"`
		Date  string `json:"date"`
	} `json:"author"`
	Files []struct {
		Path      string `json:"path"`
		OldPath   string `json:"originalPath"`
		Additions int    `json:"additions"`
		Deletions int    `json:"deletions"`
		Binary    bool   `json:"binary"`
		Diff      string `json:"diff"`
	} `json:"files"`
}

// renderShow writes git_show's result as git show --diff-merges=first-parent
// prints it: the medium header (a merge's abbreviated parents on a Merge:
// line), the message indented by four spaces, then the patch (or numstat
// lines, a rename as "old => new").
func renderShow(content json.RawMessage, numstat bool, c palette) (string, bool) {
	var s showResult
	if json.Unmarshal(content, &s) != nil || s.Hash == "" {
		return "", false
	}
	var b strings.Builder
	b.WriteString(c.paint(sgrYellow, "commit "+s.Hash))
	if s.Refs != "" {
		b.WriteString(" " + decoration(s.Refs, c))
	}
	b.WriteString("\n")
	if len(s.Parents) > 1 {
		short := make([]string, len(s.Parents))
		for i, p := range s.Parents {
			short[i] = p[:min(max(7, len(s.ShortHash)), len(p))]
		}
		b.WriteString("Merge: " + strings.Join(short, " ") + "\n")
	}
	fmt.Fprintf(&b, "Author: %s <%s>\nDate:   %s\n", s.Author.Name, s.Author.Email, gitDate(s.Author.Date))
	// git skips the message's leading and trailing blank lines.
	lines := strings.Split(strings.TrimRight(s.Message, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	b.WriteString("\n")
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	if len(s.Files) > 0 {
		b.WriteString("\n")
	}
	for _, f := range s.Files {
		name := f.Path
		if f.OldPath != "" {
			name = renameName(f.OldPath, f.Path)
		}
		switch {
		case numstat && f.Binary:
			fmt.Fprintf(&b, "-\t-\t%s\n", name)
		case numstat:
			fmt.Fprintf(&b, "%d\t%d\t%s\n", f.Additions, f.Deletions, name)
		default:
			writeColoredPatch(&b, f.Diff, c)
		}
	}
	return b.String(), true
}

// renameName is how git's numstat names a rename: the directories both
// paths share, before and after the part that differs, stay outside braces
// ("dir/{a.txt => b.txt}", "{old => new}/f.txt"); with nothing shared it is
// "old => new".
func renameName(a, b string) string {
	at := func(s string, i int) byte {
		if i >= 0 && i < len(s) {
			return s[i]
		}
		return 0 // the end of a string matches the other's end
	}
	pfx := 0 // the common leading directories, with their slash
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '/' {
			pfx = i + 1
		}
	}
	// The common trailing part from a slash on; it may reach back onto the
	// prefix's own slash.
	low := pfx
	if pfx > 0 {
		low--
	}
	sfx := 0
	for i, j := len(a), len(b); i >= low && j >= low && at(a, i) == at(b, j); i, j = i-1, j-1 {
		if at(a, i) == '/' {
			sfx = len(a) - i
		}
	}
	midA, midB := max(0, len(a)-pfx-sfx), max(0, len(b)-pfx-sfx)
	if pfx+sfx == 0 {
		return a + " => " + b
	}
	return a[:pfx] + "{" + a[pfx:pfx+midA] + " => " + b[pfx:pfx+midB] + "}" + a[len(a)-sfx:]
}

// gitDate turns an ISO 8601 date into git's default date format
// ("Wed Dec 2 03:19:58 2026 +0000"); an unreadable one is kept.
func gitDate(iso string) string {
	t, err := time.Parse(time.RFC3339, iso)
	if err != nil {
		return iso
	}
	return t.Format("Mon Jan 2 15:04:05 2006 -0700")
}

// decoration is git's "(HEAD -> main, origin/main, tag: v1)", coloured like
// git: HEAD bold cyan, local branches bold green, remote ones bold red,
// tags bold yellow.
func decoration(refs string, c palette) string {
	if !c.on {
		return "(" + refs + ")"
	}
	parts := strings.Split(refs, ", ")
	for i, p := range parts {
		switch {
		case strings.HasPrefix(p, "HEAD -> "):
			parts[i] = c.paint(sgrBoldCyan, "HEAD ->") + " " + c.paint(sgrBoldGreen, strings.TrimPrefix(p, "HEAD -> "))
		case p == "HEAD":
			parts[i] = c.paint(sgrBoldCyan, p)
		case strings.HasPrefix(p, "tag: "):
			parts[i] = c.paint(sgrBoldYell, p)
		case strings.Contains(p, "/") && !strings.HasPrefix(p, "refs/"):
			parts[i] = c.paint(sgrBoldRed, p)
		default:
			parts[i] = c.paint(sgrBoldGreen, p)
		}
	}
	return c.paint(sgrYellow, "(") + strings.Join(parts, c.paint(sgrYellow, ", ")) + c.paint(sgrYellow, ")")
}

// expandLogFormat fills in a --format template.
func expandLogFormat(format string, e logEntry, c palette) string {
	format = strings.TrimPrefix(strings.TrimPrefix(format, "tformat:"), "format:")
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		rest := format[i+1:]
		two := ""
		if len(rest) >= 2 {
			two = rest[:2]
		}
		switch {
		case two == "an":
			b.WriteString(e.AuthorName)
			i += 2
		case two == "ae":
			b.WriteString(e.AuthorEmail)
			i += 2
		case two == "ad":
			b.WriteString(gitDate(e.Date))
			i += 2
		case two == "aI":
			b.WriteString(e.Date)
			i += 2
		case rest[0] == 'H':
			b.WriteString(e.Hash)
			i++
		case rest[0] == 'h':
			b.WriteString(e.ShortHash)
			i++
		case rest[0] == 's':
			b.WriteString(e.Subject)
			i++
		case rest[0] == 'D':
			b.WriteString(e.Refs)
			i++
		case rest[0] == 'd':
			if e.Refs != "" {
				b.WriteString(" " + decoration(e.Refs, c))
			}
			i++
		case rest[0] == 'n':
			b.WriteString("\n")
			i++
		case rest[0] == '%':
			b.WriteString("%")
			i++
		default:
			b.WriteByte('%')
		}
	}
	return b.String()
}

// blameLine is one line of git_blame's result.
type blameLine struct {
	Line       int    `json:"line"`
	Hash       string `json:"hash"`
	Author     string `json:"author"`
	AuthorTime int64  `json:"authorTime"`
	Text       string `json:"text"`
}

// renderBlame writes git_blame's result as "git blame --root" does:
// "<8-digit hash> (<author> <date> <line>) <text>", authors padded to the
// longest, line numbers to the widest. Dates are in the local time zone
// (the result carries no author zone). git marks root commits "^abcdef1"
// unless --root; meith always prints their hash.
func renderBlame(content json.RawMessage, loc *time.Location) (string, bool) {
	var r struct {
		Lines []blameLine `json:"lines"`
	}
	if json.Unmarshal(content, &r) != nil {
		return "", false
	}
	authorW, lineW := 0, 1
	for _, l := range r.Lines {
		authorW = max(authorW, utf8.RuneCountInString(l.Author))
		lineW = max(lineW, len(strconv.Itoa(l.Line)))
	}
	var b strings.Builder
	for _, l := range r.Lines {
		hash := l.Hash
		if len(hash) > 8 {
			hash = hash[:8]
		}
		pad := strings.Repeat(" ", authorW-utf8.RuneCountInString(l.Author))
		when := time.Unix(l.AuthorTime, 0).In(loc).Format("2006-01-02 15:04:05 -0700")
		fmt.Fprintf(&b, "%s (%s%s %s %*d) %s\n", hash, l.Author, pad, when, lineW, l.Line, strings.TrimSuffix(l.Text, "\n"))
	}
	return b.String(), true
}

// commandBase is the folder a git command looks from: its cwd argument
// (relative to the process's folder) or the process's folder.
func commandBase(p Params) string {
	wd, _ := os.Getwd()
	cwd := paramString(p["cwd"])
	if cwd == "" {
		return wd
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(wd, cwd)
	}
	return cwd
}
