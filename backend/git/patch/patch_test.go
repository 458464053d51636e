package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\r\nb", []string{"a\r\n", "b"}},
		{"\n\n", []string{"\n", "\n"}},
		{"a\rb\n", []string{"a\rb\n"}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range SplitLines([]byte(tt.in)) {
			got = append(got, string(l))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCounts(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 8000)
	tests := []struct {
		name     string
		old, new string
		add, del int
		binary   bool
	}{
		{"identical", "a\nb\n", "a\nb\n", 0, 0, false},
		{"both empty", "", "", 0, 0, false},
		{"added file", "", "a\nb\n", 2, 0, false},
		{"emptied file", "a\nb", "", 0, 2, false},
		{"final newline removed", "a\nb\n", "a\nb", 1, 1, false},
		{"CRLF against LF", "a\r\nb\r\n", "a\nb\r\n", 1, 1, false},
		{"whitespace only", "a\n\tb\n", "a\n    b\n", 1, 1, false},
		{"repeated lines", "x\nx\nx\n", "x\nx\nx\nx\nx\n", 2, 0, false},
		{"NUL is binary", "a\n", "a\x00\n", 0, 0, true},
		{"NUL after 8000 bytes is text", string(big) + "\n", string(big) + "\x00\n", 1, 1, false},
	}
	for _, tt := range tests {
		add, del, bin := Counts([]byte(tt.old), []byte(tt.new))
		if add != tt.add || del != tt.del || bin != tt.binary {
			t.Errorf("%s: Counts = %d, %d, %v, want %d, %d, %v", tt.name, add, del, bin, tt.add, tt.del, tt.binary)
		}
	}
}

func TestDiffSlidesAmbiguousInsertionDown(t *testing.T) {
	old := SplitLines([]byte("a\na\na\n"))
	new := SplitLines([]byte("a\na\na\na\n"))
	got := Diff(old, new)
	want := []Change{{OldStart: 3, OldLines: 0, NewStart: 3, NewLines: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff(3×a, 4×a) = %+v, want %+v", got, want)
	}
}

func TestDiffContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := DiffContext(ctx, SplitLines([]byte("a\n")), SplitLines([]byte("b\n")), DiffOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("DiffContext(cancelled) error = %v, want context.Canceled", err)
	}
	// A big, completely different input honours a deadline mid-way.
	var a, b bytes.Buffer
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&a, "a%d\n", i%5000)
		fmt.Fprintf(&b, "b%d\n", i%3000)
		if i%7 == 0 {
			fmt.Fprintf(&b, "a%d\n", i%5000)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, _, _, err := CountsContext(ctx, a.Bytes(), b.Bytes()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CountsContext(expired) error = %v, want context.DeadlineExceeded", err)
	}
}

// A 100k-line file with scattered edits diffs quickly and in linear memory.
func TestDiffLargeFile(t *testing.T) {
	old, new := benchFiles(100000, 200)
	start := time.Now()
	add, del, _ := Counts(old, new)
	if add == 0 || del == 0 {
		t.Fatalf("Counts = %d, %d; want changes", add, del)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Counts on 100k lines took %v", d)
	}
}

func TestQuotePathRoundTrip(t *testing.T) {
	tests := []struct{ name, quoted string }{
		{"plain.txt", "a/plain.txt"},
		{"sp ace", "a/sp ace"},
		{"t\tab\u00e9", `"a/t\tab\303\251"`},
		{`q"uote`, `"a/q\"uote"`},
		{`back\slash`, `"a/back\\slash"`},
		{"ctl\x01\x7f", `"a/ctl\001\177"`},
	}
	for _, tt := range tests {
		got := quotePath("a/", tt.name)
		if got != tt.quoted {
			t.Errorf("quotePath(%q) = %s, want %s", tt.name, got, tt.quoted)
		}
		if strings.HasPrefix(got, `"`) {
			back, rest, ok := UnquoteC(got + " tail")
			if !ok || back != "a/"+tt.name || rest != " tail" {
				t.Errorf("UnquoteC(%s) = %q, %q, %v", got, back, rest, ok)
			}
		}
	}
}

func mustParse(t *testing.T, s string) []FilePatch {
	t.Helper()
	fps, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, s)
	}
	return fps
}

func lineTexts(h Hunk) string {
	var b strings.Builder
	for _, l := range h.Lines {
		kind := string(rune(l.Kind))
		if l.Kind == Context {
			kind = "="
		}
		fmt.Fprintf(&b, "%s%q ", kind, l.Text)
	}
	return strings.TrimSpace(b.String())
}

func TestParseHeaders(t *testing.T) {
	in := "" +
		"some mail text\n" +
		"diff --git \"a/t\\tab\\303\\251\" \"b/t\\tab\\303\\251\"\n" +
		"index 587be6b..975fbec 100644\n" +
		"--- \"a/t\\tab\\303\\251\"\n" +
		"+++ \"b/t\\tab\\303\\251\"\n" +
		"@@ -1 +1 @@\n" +
		"-x\n" +
		"+y\n" +
		"diff --git a/m b/m\n" +
		"old mode 100644\n" +
		"new mode 100755\n" +
		"diff --git a/e b/e\n" +
		"new file mode 100644\n" +
		"index 0000000..e69de29\n" +
		"diff --git a/sp ace.txt b/sp ace2.txt\n" +
		"old mode 100644\n" +
		"new mode 100755\n" +
		"similarity index 90%\n" +
		"rename from sp ace.txt\n" +
		"rename to sp ace2.txt\n" +
		"index 0ff3bbb..fb3ced1\n" +
		"--- a/sp ace.txt\t\n" +
		"+++ b/sp ace2.txt\t\n" +
		"@@ -2,2 +2,2 @@ func f() {\n" +
		" 2\n" +
		"-5\n" +
		"+five\n" +
		"diff --git a/gone b/gone\n" +
		"deleted file mode 100644\n" +
		"index 587be6b..0000000\n" +
		"--- a/gone\n" +
		"+++ /dev/null\n" +
		"@@ -1 +0,0 @@\n" +
		"-x\n" +
		"diff --git a/bin b/bin\n" +
		"index 1111111..2222222 100644\n" +
		"Binary files a/bin and b/bin differ\n" +
		"-- \n2.39.5\n"
	fps := mustParse(t, in)
	if len(fps) != 6 {
		t.Fatalf("Parse = %d file patches, want 6", len(fps))
	}
	want := []FilePatch{
		{OldPath: "t\tab\u00e9", NewPath: "t\tab\u00e9", OldMode: filemode.Regular, NewMode: filemode.Regular, OldHash: "587be6b", NewHash: "975fbec"},
		{OldPath: "m", NewPath: "m", OldMode: filemode.Regular, NewMode: filemode.Executable},
		{OldPath: "e", NewPath: "e", NewMode: filemode.Regular, IsNew: true, OldHash: "0000000", NewHash: "e69de29"},
		{OldPath: "sp ace.txt", NewPath: "sp ace2.txt", OldMode: filemode.Regular, NewMode: filemode.Executable, IsRename: true, Similarity: 90, OldHash: "0ff3bbb", NewHash: "fb3ced1"},
		{OldPath: "gone", NewPath: "gone", OldMode: filemode.Regular, IsDelete: true, OldHash: "587be6b", NewHash: "0000000"},
		{OldPath: "bin", NewPath: "bin", OldMode: filemode.Regular, NewMode: filemode.Regular, OldHash: "1111111", NewHash: "2222222", IsBinary: true},
	}
	for i, w := range want {
		got := fps[i]
		got.Hunks = nil
		if !reflect.DeepEqual(got, w) {
			t.Errorf("file patch %d = %+v\nwant %+v", i, got, w)
		}
	}
	if h := fps[3].Hunks[0]; h.Section != "func f() {" || h.OldStart != 2 || h.NewLines != 2 {
		t.Errorf("rename hunk = %+v", h)
	}
	if h := fps[4].Hunks[0]; h.OldStart != 1 || h.OldLines != 1 || h.NewStart != 0 || h.NewLines != 0 {
		t.Errorf("deletion hunk header = %s", h.Header())
	}
}

func TestParseContent(t *testing.T) {
	in := "diff --git a/f b/f\n" +
		"--- a/f\n" +
		"+++ b/f\n" +
		"@@ -0,0 +1,3 @@\n" +
		"+crlf\r\n" +
		"+\n" +
		"+last\r\n" +
		"\\ No newline at end of file\n" +
		"@@ -5,3 +8,2 @@\n" +
		" ctx\n" +
		"\n" +
		"-old\n" +
		"\\ No newline at end of file\n" +
		"@@ -9 +9 @@\n" +
		"-x\n" +
		"+y" // no final newline in the patch text
	fps := mustParse(t, in)
	hs := fps[0].Hunks
	if len(hs) != 3 {
		t.Fatalf("%d hunks, want 3", len(hs))
	}
	tests := []struct {
		hunk int
		want string
	}{
		{0, `+"crlf\r\n" +"\n" +"last\r"`},
		{1, `="ctx\n" ="\n" -"old"`},
		{2, `-"x\n" +"y\n"`},
	}
	for _, tt := range tests {
		if got := lineTexts(hs[tt.hunk]); got != tt.want {
			t.Errorf("hunk %d lines = %s, want %s", tt.hunk, got, tt.want)
		}
	}
	if got := hs[1].Header(); got != "@@ -5,3 +8,2 @@" {
		t.Errorf("Header() = %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"nothing", "hello\n", "no file patch found"},
		{"hunk without header", "@@ -1 +1 @@\n-a\n+b\n", "has no file header"},
		{"short hunk", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n", "ends early"},
		{"long hunk", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n-b\n+c\n", "more lines than its header"},
		{"context only", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n a\n", "no added or deleted lines"},
		{"garbage line", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n*b\n", "bad line"},
		{"header only", "diff --git a/f b/f\nindex 1..2 100644\n", "no hunks and no metadata change"},
		{"new file with old lines", "diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "depends on old contents"},
		{"deleted and renamed", "diff --git a/f b/g\ndeleted file mode 100644\nrename from f\nrename to g\n", "inconsistent header lines"},
		{"bad mode", "diff --git a/f b/f\nold mode 10x644\nnew mode 100755\n", "invalid file mode"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil || !IsParseError(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse error = %v, want a ParseError containing %q", tt.name, err, tt.want)
		}
	}
}

// roundTrip builds our patch for old→new, parses it and applies it both ways.
func roundTrip(t *testing.T, old, new string) FilePatch {
	t.Helper()
	f := File{OldPath: "f", NewPath: "f", OldMode: filemode.Regular, NewMode: filemode.Regular, Old: []byte(old), New: []byte(new)}
	u, _, err := Unified(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	fps := mustParse(t, string(u))
	got, err := Apply([]byte(old), fps[0], false)
	if err != nil || string(got) != new {
		t.Errorf("Apply(%q → %q) = %q, %v\n%s", old, new, got, err, u)
	}
	back, err := Apply([]byte(new), fps[0], true)
	if err != nil || string(back) != old {
		t.Errorf("Apply reverse(%q → %q) = %q, %v\n%s", old, new, back, err, u)
	}
	return fps[0]
}

func TestApplyRoundTrips(t *testing.T) {
	tests := []struct{ name, old, new string }{
		{"add final newline", "a\nb", "a\nb\n"},
		{"remove final newline", "a\nb\n", "a\nb"},
		{"change last line without newline", "a\nb", "a\nc"},
		{"append after line without newline", "a\nb", "a\nb\nc\n"},
		{"CRLF file", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"},
		{"LF to CRLF", "a\nb\n", "a\r\nb\r\n"},
		{"repeated lines", "x\nx\nx\nx\nx\nx\nx\nx\n", "x\nx\nx\ny\nx\nx\nx\nx\nx\n"},
		{"multiple hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n", "0\n1\n2\n3\n4\n5\n6\n7\nx\n9\n10\n11\n12\n13\n"},
		{"empty to content", "", "a\n"},
		{"content to empty", "a\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { roundTrip(t, tt.old, tt.new) })
	}
}

func hunkOf(t *testing.T, patch string) FilePatch {
	t.Helper()
	return mustParse(t, patch)[0]
}

func TestApplyOffsetPrefersNearestMatch(t *testing.T) {
	// "a b c" appears at lines 1, 5 and 9; the hunk says line 6 (1-based),
	// so the copy at line 5 (one earlier) is nearer than the one at 9.
	old := "a\nb\nc\nz\na\nb\nc\nz\na\nb\nc\nz\n"
	fp := hunkOf(t, "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -6,3 +6,4 @@\n a\n b\n+NEW\n c\n")
	got, err := Apply([]byte(old), fp, false)
	want := "a\nb\nc\nz\na\nb\nNEW\nc\nz\na\nb\nc\nz\n"
	if err != nil || string(got) != want {
		t.Errorf("Apply = %q, %v; want %q", got, err, want)
	}
}

func TestApplyRules(t *testing.T) {
	mod := "diff --git a/src/a.go b/src/a.go\n--- a/src/a.go\n+++ b/src/a.go\n"
	tests := []struct {
		name    string
		old     string
		patch   string
		reverse bool
		want    string
		err     string
	}{
		{
			name:  "second hunk fails",
			old:   "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			patch: mod + "@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -10,4 +10,5 @@\n 10\n-11\n+eleven\n+extra\n 12\n 99\n",
			err:   "patch does not apply to src/a.go: hunk #2 (@@ -10,4 +10,5 @@) context does not match",
		},
		{
			name:  "hunk at line 1 must match at the start",
			old:   "x\na\nb\n",
			patch: mod + "@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
			err:   "hunk #1",
		},
		{
			name:  "hunk without trailing context must match at the end",
			old:   "p\na\nb\nq\n",
			patch: mod + "@@ -2,2 +2,2 @@\n a\n-b\n+B\n",
			err:   "hunk #1",
		},
		{
			name:  "new file",
			old:   "",
			patch: "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			want:  "a\nb\n",
		},
		{
			name:  "new file that exists",
			old:   "x\n",
			patch: "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n",
			err:   "patch does not apply to n: the file already exists",
		},
		{
			name:  "deletion",
			old:   "a\nb\n",
			patch: "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:  "",
		},
		{
			name:  "deletion of a file that has more",
			old:   "a\nb\nc\n",
			patch: "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			err:   "hunk #1",
		},
		{
			name:    "reverse of a deletion recreates the file",
			old:     "",
			patch:   "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			reverse: true,
			want:    "a\nb\n",
		},
		{
			name:    "reverse of a new file empties it",
			old:     "a\n",
			patch:   "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n",
			reverse: true,
			want:    "",
		},
		{
			name:  "mode change only",
			old:   "keep\n",
			patch: "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n",
			want:  "keep\n",
		},
		{
			name:  "binary",
			old:   "x",
			patch: "diff --git a/b b/b\nindex 1..2 100644\nBinary files a/b and b/b differ\n",
			err:   "binary patches cannot be applied",
		},
		{
			name:  "CRLF context must match exactly",
			old:   "a\r\nb\r\n",
			patch: mod + "@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
			err:   "context does not match",
		},
		{
			name:  "line without newline does not match one with",
			old:   "a\nb\nc\n",
			patch: mod + "@@ -2,2 +2,2 @@\n-b\n+B\n c\n\\ No newline at end of file\n",
			err:   "context does not match",
		},
		{
			name:  "context without newline followed by an added line, like git",
			old:   "a\nb",
			patch: mod + "@@ -1,2 +1,3 @@\n a\n b\n\\ No newline at end of file\n+c\n",
			want:  "a\nbc\n",
		},
		{
			name:  "hunks cannot match lines an earlier hunk wrote",
			old:   "a\nb\nc\n",
			patch: mod + "@@ -1,2 +1,2 @@\n-a\n+x\n b\n@@ -1,2 +1,2 @@\n-x\n+y\n b\n",
			err:   "hunk #2",
		},
	}
	for _, tt := range tests {
		fp := hunkOf(t, tt.patch)
		got, err := Apply([]byte(tt.old), fp, tt.reverse)
		if tt.err != "" {
			if err == nil || !IsApplyError(err) || !strings.Contains(err.Error(), tt.err) || got != nil {
				t.Errorf("%s: Apply = %q, %v; want nil and an ApplyError containing %q", tt.name, got, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: Apply = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	var ae *ApplyError
	_, err := Apply([]byte("1\n"), hunkOf(t, mod+"@@ -1 +1 @@\n-2\n+3\n"), false)
	if !errors.As(err, &ae) || ae.Path != "src/a.go" || ae.Hunk != 1 || ae.Header != "@@ -1 +1 @@" {
		t.Errorf("ApplyError = %#v", ae)
	}
}

func TestApplyEqualDistancePrefersLater(t *testing.T) {
	// The hunk's context "a" is stated at line 3 (index 2) which is "q";
	// copies of "a" sit at indexes 1 and 3: git tries index 3 first.
	old := "q\na\nq\na\nq\n"
	fp := hunkOf(t, "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@\n a\n+NEW\n q\n")
	got, err := Apply([]byte(old), fp, false)
	want := "q\na\nq\na\nNEW\nq\n"
	if err != nil || string(got) != want {
		t.Errorf("Apply = %q, %v; want %q", got, err, want)
	}
}

func TestSelectLines(t *testing.T) {
	h := Hunk{OldStart: 10, OldLines: 3, NewStart: 12, NewLines: 3, Lines: []Line{
		{Context, []byte("c1\n")},
		{Deleted, []byte("d1\n")},
		{Deleted, []byte("d2\n")},
		{Added, []byte("a1\n")},
		{Added, []byte("a2\n")},
	}}
	tests := []struct {
		name     string
		selected []int
		reverse  bool
		header   string
		lines    string
	}{
		{"all", []int{1, 2, 3, 4}, false, "@@ -10,3 +10,3 @@", `="c1\n" -"d1\n" -"d2\n" +"a1\n" +"a2\n"`},
		{"one deletion", []int{1}, false, "@@ -10,3 +10,2 @@", `="c1\n" -"d1\n" ="d2\n"`},
		{"one addition", []int{4}, false, "@@ -10,3 +10,4 @@", `="c1\n" ="d1\n" ="d2\n" +"a2\n"`},
		{"nothing", nil, false, "@@ -10,3 +10,3 @@", `="c1\n" ="d1\n" ="d2\n"`},
		{"context index ignored", []int{0, 99, -1}, false, "@@ -10,3 +10,3 @@", `="c1\n" ="d1\n" ="d2\n"`},
		{"reverse one addition", []int{3}, true, "@@ -12,2 +12,3 @@", `="c1\n" +"a1\n" ="a2\n"`},
		{"reverse one deletion", []int{2}, true, "@@ -12,4 +12,3 @@", `="c1\n" -"d2\n" ="a1\n" ="a2\n"`},
	}
	for _, tt := range tests {
		got := SelectLines(h, tt.selected)
		if tt.reverse {
			got = SelectLinesReverse(h, tt.selected)
		}
		if got.Header() != tt.header || lineTexts(got) != tt.lines {
			t.Errorf("%s: = %s %s\nwant %s %s", tt.name, got.Header(), lineTexts(got), tt.header, tt.lines)
		}
	}
}

func TestSelectLinesLastLineWithoutNewline(t *testing.T) {
	// old "a\nb" (no newline) → new "a\nb\nc\n"; staging only "+c" must give
	// "a\nb\nc\n" minus nothing else: b gains its newline so c is a line.
	fp := roundTrip(t, "a\nb", "a\nb\nc\n")
	idx := -1
	for i, l := range fp.Hunks[0].Lines {
		if l.Kind == Added && string(l.Text) == "c\n" {
			idx = i
		}
	}
	part, ok := Select(fp, map[int][]int{0: {idx}}, false)
	if !ok {
		t.Fatal("Select found nothing")
	}
	got, err := Apply([]byte("a\nb"), part, false)
	if err != nil || string(got) != "a\nb\nc\n" {
		t.Errorf("Apply(partial) = %q, %v\n%s", got, err, part.Format())
	}
	if _, err := Parse(part.Format()); err != nil {
		t.Errorf("Parse(Format(partial)): %v", err)
	}
}

func TestSelectRenumbersHunks(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
	new := "1\nA\nB\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nC\n13\n14\n15\n16\n"
	fp := roundTrip(t, old, new)
	if len(fp.Hunks) != 2 {
		t.Fatalf("want 2 hunks:\n%s", fp.Format())
	}
	// Keep only "B" from hunk 1 and "C" from hunk 2.
	sel := map[int][]int{}
	for k, h := range fp.Hunks {
		for i, l := range h.Lines {
			if s := string(l.Text); s == "B\n" || s == "C\n" {
				sel[k] = append(sel[k], i)
			}
		}
	}
	part, ok := Select(fp, sel, false)
	if !ok || len(part.Hunks) != 2 {
		t.Fatalf("Select = %v\n%s", ok, part.Format())
	}
	if got := part.Hunks[1].Header(); !strings.HasPrefix(got, "@@ -10,6 +11,7 @@") {
		t.Errorf("second hunk header = %s, want @@ -10,6 +11,7 @@", got)
	}
	got, err := Apply([]byte(old), part, false)
	want := "1\nB\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nC\n13\n14\n15\n16\n"
	if err != nil || string(got) != want {
		t.Errorf("Apply(partial) = %q, %v", got, err)
	}
}

func TestUnifiedSpecialFiles(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		f    File
		want string
	}{
		{
			name: "empty new file",
			f:    File{OldPath: "e", NewMode: filemode.Regular},
			want: "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
		},
		{
			name: "deleted empty file",
			f:    File{OldPath: "e", OldMode: filemode.Regular},
			want: "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
		},
		{
			name: "mode only",
			f:    File{OldPath: "m", OldMode: filemode.Regular, NewMode: filemode.Executable, Old: []byte("x\n"), New: []byte("x\n")},
			want: "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n",
		},
		{
			name: "pure rename",
			f:    File{OldPath: "a b", NewPath: "c", OldMode: filemode.Regular, NewMode: filemode.Regular, Old: []byte("x\n"), New: []byte("x\n"), Similarity: 100},
			want: "diff --git a/a b b/c\nsimilarity index 100%\nrename from a b\nrename to c\n",
		},
		{
			name: "binary",
			f:    File{OldPath: "b", OldMode: filemode.Regular, NewMode: filemode.Regular, Old: []byte("a\x00"), New: []byte("b\x00")},
			want: "diff --git a/b b/b\nindex 90802fe..28eacf2 100644\nBinary files a/b and b/b differ\n",
		},
		{
			name: "unchanged",
			f:    File{OldPath: "u", OldMode: filemode.Regular, NewMode: filemode.Regular, Old: []byte("x\n"), New: []byte("x\n")},
			want: "",
		},
	}
	for _, tt := range tests {
		got, _, err := Unified(ctx, tt.f, nil)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: Unified = %q, %v\nwant %q", tt.name, got, err, tt.want)
		}
	}
}

func TestBlobHash(t *testing.T) {
	if got := BlobHash(nil); got != "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" {
		t.Errorf("BlobHash(empty) = %s", got)
	}
}

// DiffBytes cuts lines itself and must give Diff's groups.
func TestDiffBytesMatchesDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alpha := []string{"a\n", "b\n", "\n", "func f() {\n", "\treturn\n", "}\n", "x", "c\r\n"}
	text := func() []byte {
		var b []byte
		for range rng.Intn(40) {
			b = append(b, alpha[rng.Intn(len(alpha))]...)
		}
		return b
	}
	for i := range 3000 {
		a, b := text(), text()
		if got, want := DiffBytes(a, b), Diff(SplitLines(a), SplitLines(b)); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: DiffBytes(%q, %q) = %v, Diff = %v", i, a, b, got, want)
		}
	}
}
