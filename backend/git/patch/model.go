package patch

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// LineKind says which side of a hunk a line belongs to; its value is the
// line's prefix character in a patch.
type LineKind byte

// The kinds of hunk lines.
const (
	Context LineKind = ' '
	Deleted LineKind = '-'
	Added   LineKind = '+'
)

// Line is one line of a hunk. Text is the line exactly as it is in the file,
// terminator included ("\r\n" stays "\r\n"); a Text that does not end in
// "\n" is a last line without newline ("\ No newline at end of file").
type Line struct {
	Kind LineKind
	Text []byte
}

// NoNewline reports whether the line is a file's last line without a
// terminating newline.
func (l Line) NoNewline() bool { return len(l.Text) == 0 || l.Text[len(l.Text)-1] != '\n' }

// Hunk is one "@@ -a,b +c,d @@" section of a patch. The starts and counts are
// as written in the header: a start is 1-based, except that a side with 0
// lines names the line after which the change happens (0 = before the first
// line).
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is the text after the closing "@@" (git's function context),
	// without the separating space; it is informational only.
	Section string
	Lines   []Line
}

// Header returns the hunk's header line without newline, e.g.
// "@@ -10,4 +10,5 @@ func main() {".
func (h Hunk) Header() string {
	b := make([]byte, 0, 32+len(h.Section))
	b = append(b, "@@ -"...)
	b = appendRange(b, h.OldStart, h.OldLines)
	b = append(b, " +"...)
	b = appendRange(b, h.NewStart, h.NewLines)
	b = append(b, " @@"...)
	if h.Section != "" {
		b = append(b, ' ')
		b = append(b, h.Section...)
	}
	return string(b)
}

func appendRange(b []byte, start, count int) []byte {
	b = strconv.AppendInt(b, int64(start), 10)
	if count != 1 {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(count), 10)
	}
	return b
}

// HasChanges reports whether the hunk adds or deletes any line. git refuses
// hunks that have context lines only.
func (h Hunk) HasChanges() bool {
	for _, l := range h.Lines {
		if l.Kind != Context {
			return true
		}
	}
	return false
}

// Counts returns how many lines the hunk adds and deletes.
func (h Hunk) Counts() (additions, deletions int) {
	for _, l := range h.Lines {
		switch l.Kind {
		case Added:
			additions++
		case Deleted:
			deletions++
		}
	}
	return additions, deletions
}

// FilePatch is the patch of one file.
type FilePatch struct {
	// OldPath and NewPath are repository-relative slash paths without the
	// "a/" and "b/" prefixes. They differ only for a rename or copy; a new or
	// deleted file has its path in both.
	OldPath, NewPath string
	// OldMode and NewMode are the modes the patch states, Empty when it
	// states none (the "index" line's mode sets both).
	OldMode, NewMode filemode.FileMode
	// IsNew and IsDelete mark a file that is created or removed.
	IsNew, IsDelete bool
	// IsRename and IsCopy mark "rename from/to" and "copy from/to" headers,
	// with Similarity their "similarity index" percentage.
	IsRename, IsCopy bool
	Similarity       int
	// OldHash and NewHash are the (usually abbreviated) object names of the
	// "index" line, empty when there is none.
	OldHash, NewHash string
	// IsBinary marks "Binary files … differ" and "GIT binary patch" content,
	// which has no hunks and cannot be applied.
	IsBinary bool
	// BinaryData is the body of a "GIT binary patch" (literal hunks), set
	// by Build with UnifiedOptions.Binary; nil writes "Binary files …
	// differ" instead.
	BinaryData []byte
	Hunks      []Hunk
}

// Path returns the path the patch produces (the old one for a deletion).
func (fp *FilePatch) Path() string {
	if fp.NewPath != "" {
		return fp.NewPath
	}
	return fp.OldPath
}

// Counts returns how many lines the patch adds and deletes.
func (fp *FilePatch) Counts() (additions, deletions int) {
	for _, h := range fp.Hunks {
		a, d := h.Counts()
		additions += a
		deletions += d
	}
	return additions, deletions
}

// Format writes the patch in git's format, as "git diff" prints it for the
// same information, ready for Parse or "git apply".
func (fp *FilePatch) Format() []byte {
	var b bytes.Buffer
	fp.writeTo(&b)
	return b.Bytes()
}

// FormatAll writes several file patches as one multi-file patch.
func FormatAll(fps []FilePatch) []byte {
	var b bytes.Buffer
	for i := range fps {
		fps[i].writeTo(&b)
	}
	return b.Bytes()
}

func (fp *FilePatch) writeTo(b *bytes.Buffer) {
	oldPath, newPath := fp.OldPath, fp.NewPath
	if oldPath == "" {
		oldPath = newPath
	}
	if newPath == "" {
		newPath = oldPath
	}
	aName, bName := quotePath("a/", oldPath), quotePath("b/", newPath)
	fmt.Fprintf(b, "diff --git %s %s\n", aName, bName)
	switch {
	case fp.IsNew:
		fmt.Fprintf(b, "new file mode %06o\n", uint32(fp.NewMode))
	case fp.IsDelete:
		fmt.Fprintf(b, "deleted file mode %06o\n", uint32(fp.OldMode))
	case fp.OldMode != filemode.Empty && fp.NewMode != filemode.Empty && fp.OldMode != fp.NewMode:
		fmt.Fprintf(b, "old mode %06o\nnew mode %06o\n", uint32(fp.OldMode), uint32(fp.NewMode))
	}
	if fp.IsRename || fp.IsCopy {
		verb := "rename"
		if fp.IsCopy {
			verb = "copy"
		}
		fmt.Fprintf(b, "similarity index %d%%\n%s from %s\n%s to %s\n",
			fp.Similarity, verb, quotePath("", oldPath), verb, quotePath("", newPath))
	}
	if fp.OldHash != "" || fp.NewHash != "" {
		fmt.Fprintf(b, "index %s..%s", fp.OldHash, fp.NewHash)
		if !fp.IsNew && !fp.IsDelete && fp.OldMode == fp.NewMode && fp.OldMode != filemode.Empty {
			fmt.Fprintf(b, " %06o", uint32(fp.OldMode))
		}
		b.WriteByte('\n')
	}
	oldLabel, newLabel := aName, bName
	if fp.IsNew {
		oldLabel = "/dev/null"
	}
	if fp.IsDelete {
		newLabel = "/dev/null"
	}
	if fp.IsBinary && fp.BinaryData != nil {
		b.WriteString("GIT binary patch\n")
		b.Write(fp.BinaryData)
		return
	}
	if fp.IsBinary {
		fmt.Fprintf(b, "Binary files %s and %s differ\n", oldLabel, newLabel)
		return
	}
	if len(fp.Hunks) == 0 {
		return
	}
	// git ends a name that contains a space with a tab, so that the name's
	// end is unambiguous.
	b.WriteString("--- " + oldLabel)
	if !fp.IsNew && containsByte(oldPath, ' ') {
		b.WriteByte('\t')
	}
	b.WriteString("\n+++ " + newLabel)
	if !fp.IsDelete && containsByte(newPath, ' ') {
		b.WriteByte('\t')
	}
	b.WriteByte('\n')
	for _, h := range fp.Hunks {
		h.writeTo(b)
	}
}

func (h *Hunk) writeTo(b *bytes.Buffer) {
	b.WriteString(h.Header())
	b.WriteByte('\n')
	for _, l := range h.Lines {
		b.WriteByte(byte(l.Kind))
		b.Write(l.Text)
		if l.NoNewline() {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
