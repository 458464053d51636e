package patch

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchFiles makes a file of n lines of code-like text and a copy with
// edits scattered over it (replacements, insertions and deletions).
func benchFiles(n, edits int) (old, new []byte) {
	r := rand.New(rand.NewSource(int64(n*31 + edits)))
	lines := make([][]byte, n)
	for i := range lines {
		switch i % 7 {
		case 0:
			lines[i] = []byte(fmt.Sprintf("func f%d(x int) int {\n", i))
		case 6:
			lines[i] = []byte("}\n")
		case 5:
			lines[i] = []byte("\n")
		default:
			lines[i] = []byte(fmt.Sprintf("\tx = x*%d + %d // step %d\n", r.Intn(100), r.Intn(1000), i))
		}
	}
	old = bytes.Join(lines, nil)
	out := append([][]byte(nil), lines...)
	for e := 0; e < edits; e++ {
		at := r.Intn(len(out))
		switch e % 3 {
		case 0:
			out[at] = []byte(fmt.Sprintf("\tchanged %d\n", e))
		case 1:
			out = append(out[:at], append([][]byte{[]byte(fmt.Sprintf("\tinserted %d\n", e))}, out[at:]...)...)
		default:
			out = append(out[:at], out[at+1:]...)
		}
	}
	return old, bytes.Join(out, nil)
}

// BenchmarkCounts is Counts on a 10k-line file with 100 scattered edits.
func BenchmarkCounts(b *testing.B) {
	old, new := benchFiles(10000, 100)
	b.SetBytes(int64(len(old) + len(new)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Counts(old, new)
	}
}

// BenchmarkGitNumstat is "git diff --no-index --numstat" on the same files,
// process start included, for comparison with BenchmarkCounts.
func BenchmarkGitNumstat(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	old, new := benchFiles(10000, 100)
	dir := b.TempDir()
	p1, p2 := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	os.WriteFile(p1, old, 0o644)
	os.WriteFile(p2, new, 0o644)
	add, del, _ := Counts(old, new)
	want := fmt.Sprintf("%d\t%d\t", add, del)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "diff", "--no-index", "--numstat", p1, p2)
		cmd.Env = gitEnv()
		out, _ := cmd.Output() // exit status 1 means "differences found"
		if !bytes.HasPrefix(out, []byte(want)) {
			b.Fatalf("git numstat = %q, Counts = %q", out, want)
		}
	}
}

// BenchmarkUnified is the full patch text for the same files.
func BenchmarkUnified(b *testing.B) {
	old, new := benchFiles(10000, 100)
	f := File{OldPath: "f", NewPath: "f", OldMode: 0o100644, NewMode: 0o100644, Old: old, New: new, OldHash: nullHash, NewHash: nullHash[:39] + "1"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Unified(b.Context(), f, nil)
	}
}

// BenchmarkApply applies that patch to the old content.
func BenchmarkApply(b *testing.B) {
	old, new := benchFiles(10000, 100)
	u, _, _ := Unified(b.Context(), File{OldPath: "f", NewPath: "f", OldMode: 0o100644, NewMode: 0o100644, Old: old, New: new}, nil)
	fps, err := Parse(u)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Apply(old, fps[0], false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCounts100k is Counts on a 100k-line file with 1000 edits.
func BenchmarkCounts100k(b *testing.B) {
	old, new := benchFiles(100000, 1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Counts(old, new)
	}
}

// BenchmarkGitNumstatStartup is the same git command on two one-line files:
// git's process start, to subtract from BenchmarkGitNumstat.
func BenchmarkGitNumstatStartup(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	p1, p2 := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	os.WriteFile(p1, []byte("a\n"), 0o644)
	os.WriteFile(p2, []byte("b\n"), 0o644)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "diff", "--no-index", "--numstat", p1, p2)
		cmd.Env = gitEnv()
		cmd.Output()
	}
}
