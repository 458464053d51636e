package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"strings"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"
)

// readDocument reads path for a check: a regular text file of at most
// MaxFileBytes. It never blocks on a FIFO or a device (opened non-blocking,
// checked before reading). A file it cannot use gives a nil document and a
// note saying why.
func readDocument(path, languageID string) (*document, string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Sprintf("%s was skipped: %s", path, errText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Sprintf("%s was skipped: %s", path, errText(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Sprintf("%s was skipped: not a regular file", path)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Sprintf("%s was skipped: over %d MiB", path, MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Sprintf("%s was skipped: %s", path, errText(err))
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Sprintf("%s was skipped: over %d MiB", path, MaxFileBytes>>20)
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, fmt.Sprintf("%s was skipped: not a UTF-8 text file", path)
	}
	return &document{path: path, uri: pathToURI(path), languageID: languageID, text: string(data)}, ""
}

// pathToURI is the file URI of an absolute path.
func pathToURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriToPath is the clean path of a file URI, "" for anything else.
func uriToPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

// convert turns a server's diagnostic into the tool's: 1-based lines and
// columns in UTF-16 code units (converted from the negotiated encoding).
func convert(doc *document, d diagnostic, encoding string) Diagnostic {
	out := Diagnostic{
		Path:      doc.path,
		Line:      int(d.Range.Start.Line) + 1,
		Column:    int(utf16Column(doc.text, d.Range.Start, encoding)) + 1,
		EndLine:   int(d.Range.End.Line) + 1,
		EndColumn: int(utf16Column(doc.text, d.Range.End, encoding)) + 1,
		Severity:  severityName(d.Severity),
		Message:   cut(strings.TrimSpace(d.Message), maxMessageRunes),
		Source:    cut(d.Source, 100),
		Code:      cut(codeText(d.Code), 100),
	}
	if out.EndLine < out.Line || (out.EndLine == out.Line && out.EndColumn < out.Column) {
		out.EndLine, out.EndColumn = out.Line, out.Column
	}
	return out
}

func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	default: // 1, or absent: the client decides
		return "error"
	}
}

// codeText is a diagnostic code (an integer or a string) as text.
func codeText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// utf16Column converts p's character offset in the given encoding to
// UTF-16 code units of its line in text. UTF-16 positions pass unchanged.
func utf16Column(text string, p position, encoding string) uint32 {
	if encoding != "utf-8" && encoding != "utf-32" {
		return p.Character
	}
	line, ok := lineOf(text, int(p.Line))
	if !ok {
		return p.Character
	}
	var units uint32
	if encoding == "utf-8" {
		prefix := line[:min(int(p.Character), len(line))]
		for _, r := range prefix {
			units += uint32(utf16.RuneLen(r))
		}
		return units
	}
	n := uint32(0)
	for _, r := range line {
		if n == p.Character {
			break
		}
		units += uint32(utf16.RuneLen(r))
		n++
	}
	return units
}

// lineOf returns line n (0-based) of text, without its line break.
func lineOf(text string, n int) (string, bool) {
	for i := 0; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return "", false
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r"), true
}
