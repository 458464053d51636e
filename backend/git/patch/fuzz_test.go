package patch

import (
	"bytes"
	"context"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// FuzzParse feeds arbitrary text to Parse. Whatever it accepts must format
// to text that parses to the same patches (Format is a fixed point after
// one round), and applying the patches to anything must not panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"))
	f.Add([]byte("diff --git \"a/t\\tx\" \"b/t\\tx\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/t\\tx\"\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fps, err := Parse(data)
		if err != nil {
			if !IsParseError(err) {
				t.Fatalf("Parse error %v is not a ParseError", err)
			}
			return
		}
		once := FormatAll(fps)
		again, err := Parse(once)
		if err != nil {
			t.Fatalf("Parse(FormatAll(Parse(x))) failed: %v\n%s", err, once)
		}
		if twice := FormatAll(again); !bytes.Equal(once, twice) {
			t.Fatalf("Format is not stable:\n%s\n---\n%s", once, twice)
		}
		for _, fp := range fps {
			for _, base := range [][]byte{nil, data, []byte("a\nb\nc\n")} {
				for _, rev := range []bool{false, true} {
					if out, err := Apply(base, fp, rev); err != nil && (out != nil || !IsApplyError(err)) {
						t.Fatalf("Apply returned %q with error %v", out, err)
					}
				}
			}
		}
	})
}

// FuzzRoundTrip builds our patch for (old, new), parses it and applies it:
// forward must give new, reverse old, the stat must equal Counts, and any
// selection of lines (bits of sel) must give a partial patch that applies
// to old forward and, selected in reverse, to new in reverse.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), uint64(5))
	f.Add([]byte("x\nx\nx\n"), []byte("x\nx"), uint64(0xff))
	f.Fuzz(func(t *testing.T, old, new []byte, sel uint64) {
		if len(old) > 1<<16 || len(new) > 1<<16 {
			return
		}
		file := File{OldPath: "f", NewPath: "f", OldMode: filemode.Regular, NewMode: filemode.Regular, Old: old, New: new}
		u, st, err := Unified(context.Background(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		add, del, bin := Counts(old, new)
		if st != (Stat{Additions: add, Deletions: del, Binary: bin}) {
			t.Fatalf("Unified stat %+v, Counts %d %d %v", st, add, del, bin)
		}
		if len(u) == 0 {
			if !bytes.Equal(old, new) {
				t.Fatalf("empty patch for different content")
			}
			return
		}
		fps, err := Parse(u)
		if err != nil {
			t.Fatalf("Parse(Unified): %v\n%s", err, u)
		}
		if len(fps) != 1 {
			t.Fatalf("Parse(Unified) = %d file patches", len(fps))
		}
		fp := fps[0]
		if !bytes.Equal(fp.Format(), u) {
			t.Fatalf("Format(Parse(u)) != u:\n%s\n---\n%s", fp.Format(), u)
		}
		if bin {
			if !fp.IsBinary {
				t.Fatal("binary content without a binary patch")
			}
			return
		}
		if got, err := Apply(old, fp, false); err != nil || !bytes.Equal(got, new) {
			t.Fatalf("Apply = %q, %v; want %q\n%s", got, err, new, u)
		}
		if got, err := Apply(new, fp, true); err != nil || !bytes.Equal(got, old) {
			t.Fatalf("Apply reverse = %q, %v; want %q\n%s", got, err, old, u)
		}
		for _, reverse := range []bool{false, true} {
			selected := map[int][]int{}
			bit := 0
			for k, h := range fp.Hunks {
				for i, l := range h.Lines {
					if l.Kind != Context {
						if sel>>(bit%64)&1 == 1 {
							selected[k] = append(selected[k], i)
						}
						bit++
					}
				}
			}
			part, ok := Select(fp, selected, reverse)
			if !ok {
				continue
			}
			base := old
			if reverse {
				base = new
			}
			if _, err := Apply(base, part, reverse); err != nil {
				t.Fatalf("partial patch (reverse=%v) does not apply: %v\n%s", reverse, err, part.Format())
			}
			if _, err := Parse(part.Format()); err != nil {
				t.Fatalf("Parse(partial): %v\n%s", err, part.Format())
			}
		}
	})
}
