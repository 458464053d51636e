package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// EOLCase is one line-ending configuration for the differential tests of
// git's end-of-line conversion (core.autocrlf, core.eol and the text, eol
// and crlf attributes).
type EOLCase struct {
	Name string
	// Config is set in the repository's config, in order.
	Config [][2]string
	// Attrs are .gitattributes files by their repository path
	// (".gitattributes", "sub/.gitattributes").
	Attrs map[string]string
	// Info is .git/info/attributes ("" for none).
	Info string
}

// EOLFiles are the files every EOLCase repository starts with: text with
// LF, CRLF and mixed line endings, a lone CR, binary content with CRLF,
// and files in nested directories.
var EOLFiles = map[string]string{
	"lf.txt":          "one\ntwo\nthree\n",
	"crlf.txt":        "one\r\ntwo\r\nthree\r\n",
	"mixed.txt":       "one\r\ntwo\nthree\r\n",
	"lonecr.txt":      "one\rtwo\r\nthree\n",
	"noeol.txt":       "one\r\ntwo",
	"bin.dat":         "bin\x00ary\r\ndata\n",
	"notes.md":        "# notes\r\n\r\ntext\r\n",
	"plain":           "no extension\r\nhere\n",
	"sub/deep.txt":    "deep\r\nfile\r\n",
	"sub/deep.md":     "deep\nmarkdown\n",
	"sub/in/leaf.txt": "leaf\nfile\n",
	"sub/in/leaf.dat": "leaf\r\ndata\r\n",
}

// EOLCases are the configurations the differential tests run, each
// against git.
func EOLCases() []EOLCase {
	return []EOLCase{
		{Name: "no conversion"},
		{Name: "autocrlf=true", Config: [][2]string{{"core.autocrlf", "true"}}},
		{Name: "autocrlf=input", Config: [][2]string{{"core.autocrlf", "input"}}},
		{Name: "autocrlf=false eol=crlf text=auto", Config: [][2]string{{"core.autocrlf", "false"}, {"core.eol", "crlf"}},
			Attrs: map[string]string{".gitattributes": "* text=auto\n"}},
		{Name: "text on txt", Attrs: map[string]string{".gitattributes": "*.txt text\n"}},
		{Name: "text with core.eol=crlf", Config: [][2]string{{"core.eol", "crlf"}},
			Attrs: map[string]string{".gitattributes": "*.txt text\n*.md text\n"}},
		{Name: "-text with autocrlf=true", Config: [][2]string{{"core.autocrlf", "true"}},
			Attrs: map[string]string{".gitattributes": "*.txt -text\n"}},
		{Name: "text=auto", Attrs: map[string]string{".gitattributes": "* text=auto\n"}},
		{Name: "text=auto eol=crlf", Attrs: map[string]string{".gitattributes": "* text=auto eol=crlf\n"}},
		{Name: "text=auto eol=lf with autocrlf=true", Config: [][2]string{{"core.autocrlf", "true"}},
			Attrs: map[string]string{".gitattributes": "* text=auto eol=lf\n"}},
		{Name: "eol=crlf", Attrs: map[string]string{".gitattributes": "*.txt eol=crlf\n*.md eol=crlf\n"}},
		{Name: "eol=lf with autocrlf=true", Config: [][2]string{{"core.autocrlf", "true"}},
			Attrs: map[string]string{".gitattributes": "*.txt eol=lf\n"}},
		{Name: "text eol=crlf", Attrs: map[string]string{".gitattributes": "* text eol=crlf\n*.dat binary\n"}},
		{Name: "binary macro with autocrlf=true", Config: [][2]string{{"core.autocrlf", "true"}},
			Attrs: map[string]string{".gitattributes": "*.md binary\n*.txt text=auto\n"}},
		{Name: "legacy crlf attribute", Attrs: map[string]string{".gitattributes": "*.txt crlf\n*.md -crlf\nplain crlf=input\n"}},
		{Name: "text wins over crlf", Config: [][2]string{{"core.autocrlf", "true"}},
			Attrs: map[string]string{".gitattributes": "* text\n*.txt -crlf\n*.dat -text\n"}},
		{Name: "nested gitattributes", Attrs: map[string]string{
			".gitattributes":        "* text=auto\n*.txt eol=lf\n",
			"sub/.gitattributes":    "*.txt eol=crlf\n*.md -text\n",
			"sub/in/.gitattributes": "leaf.txt -text\n*.dat text eol=crlf\n",
		}},
		{Name: "nested unset and unspecified", Config: [][2]string{{"core.autocrlf", "true"}}, Attrs: map[string]string{
			".gitattributes":     "* text eol=crlf\n",
			"sub/.gitattributes": "*.txt !eol\n*.md !text\n",
		}},
		{Name: "custom macro", Attrs: map[string]string{
			".gitattributes":     "[attr]windows text eol=crlf\n*.md windows\nsub/** windows\n",
			"sub/.gitattributes": "[attr]ignored -text\n*.dat ignored\n",
		}},
		{Name: "info/attributes wins", Config: [][2]string{{"core.autocrlf", "input"}},
			Attrs: map[string]string{".gitattributes": "*.txt text eol=crlf\n"}, Info: "*.txt -text\ncrlf.txt text\n"},
		{Name: "anchored patterns", Attrs: map[string]string{
			".gitattributes":     "/crlf.txt eol=crlf\nsub/*.txt eol=crlf\n**/in/*.dat text\n",
			"sub/.gitattributes": "/deep.md eol=crlf\n",
		}},
	}
}

// Setup writes the case's configuration and attribute files into the
// repository at dir.
func (c EOLCase) Setup(t testing.TB, dir string) {
	t.Helper()
	for _, kv := range c.Config {
		Git(t, dir, "config", kv[0], kv[1])
	}
	for p, text := range c.Attrs {
		Write(t, dir, p, text, 0o644)
	}
	if c.Info != "" {
		Write(t, dir, ".git/info/attributes", c.Info, 0o644)
	}
}

// WriteEOLFiles writes EOLFiles under dir.
func WriteEOLFiles(t testing.TB, dir string) {
	t.Helper()
	for p, text := range EOLFiles {
		Write(t, dir, p, text, 0o644)
	}
}

// EOLPaths returns the paths of EOLFiles, sorted.
func EOLPaths() []string {
	out := make([]string, 0, len(EOLFiles))
	for p := range EOLFiles {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// FlipEOL turns LF line endings into CRLF and CRLF into LF (lone CRs
// stay).
func FlipEOL(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\n')
			i++
		case s[i] == '\n':
			b.WriteString("\r\n")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Copy copies the directory tree at src (a repository with its .git) to a
// new temporary directory and returns it, modes and times kept.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s: %v\n%s", src, err, out)
	}
	return dst
}

// ReadFiles returns the content of the named files under dir ("<missing>"
// for a file that is not there).
func ReadFiles(t testing.TB, dir string, paths []string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			out[p] = "<missing>"
			continue
		}
		out[p] = string(b)
	}
	return out
}
