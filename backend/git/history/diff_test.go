package history

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// gitHunks runs `git diff --no-index -U0` and converts its hunk headers to
// 0-based hunks.
func gitHunks(t *testing.T, dir string, a, b []byte) []hunk {
	t.Helper()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, a, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := gitE(dir, nil, "diff", "--no-index", "--no-color", "-U0", "a", "b")
	var hs []hunk
	for _, m := range hunkHeader.FindAllStringSubmatch(out, -1) {
		num := func(s string, def int) int {
			if s == "" {
				return def
			}
			n, _ := strconv.Atoi(s)
			return n
		}
		h := hunk{startA: num(m[1], 0), countA: num(m[2], 1), startB: num(m[3], 0), countB: num(m[4], 1)}
		if h.countA > 0 {
			h.startA--
		}
		if h.countB > 0 {
			h.startB--
		}
		hs = append(hs, h)
	}
	return hs
}

func randomText(rng *rand.Rand, n int, alphabet []string) []byte {
	var sb strings.Builder
	for range n {
		sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

func mutate(rng *rand.Rand, src []byte, alphabet []string) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	edits := 1 + rng.Intn(6)
	for range edits {
		pos := 0
		if len(lines) > 0 {
			pos = rng.Intn(len(lines) + 1)
		}
		switch rng.Intn(4) {
		case 0: // insert a block
			var block []string
			for range 1 + rng.Intn(5) {
				block = append(block, alphabet[rng.Intn(len(alphabet))]+"\n")
			}
			lines = append(lines[:pos], append(block, lines[pos:]...)...)
		case 1: // delete a block
			if pos < len(lines) {
				end := min(len(lines), pos+1+rng.Intn(4))
				lines = append(lines[:pos], lines[end:]...)
			}
		case 2: // replace a line
			if pos < len(lines) {
				lines[pos] = alphabet[rng.Intn(len(alphabet))] + "\n"
			}
		case 3: // duplicate a block
			if pos < len(lines) {
				end := min(len(lines), pos+1+rng.Intn(4))
				block := append([]string(nil), lines[pos:end]...)
				lines = append(lines[:end], append(block, lines[end:]...)...)
			}
		}
	}
	out := strings.Join(lines, "")
	if rng.Intn(8) == 0 && len(out) > 0 {
		out = strings.TrimSuffix(out, "\n") // no newline at end of file
	}
	return []byte(out)
}

// TestDiffHunksMatchGit compares the xdiff port with `git diff -U0` on
// random edits of small-alphabet files (many repeated lines, so many equally
// short alignments), indented code-like text, and files past the 1 KiB
// common-tail trim.
func TestDiffHunksMatchGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	alphabets := [][]string{
		{"a", "b", "c", "", "}"},
		{"func f() {", "\tif x {", "\t\treturn 1", "\t}", "}", "", "// comment", "\tx++"},
		{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"},
	}
	cases, totalHunks := 0, 0
	for round := range 60 {
		alpha := alphabets[round%len(alphabets)]
		n := 5 + rng.Intn(40)
		if round%10 == 9 {
			n = 400 // bigger than the 1 KiB tail block
		}
		a := randomText(rng, n, alpha)
		if rng.Intn(6) == 0 {
			a = []byte(strings.TrimSuffix(string(a), "\n"))
		}
		b := mutate(rng, a, alpha)
		got := diffHunks(a, b)
		want := gitHunks(t, dir, a, b)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: diffHunks = %v, want %v\n--- a\n%s\n--- b\n%s", round, got, want, a, b)
		}
		cases++
		totalHunks += len(want)
	}
	if totalHunks < 60 {
		t.Fatalf("only %d hunks in %d diffs: the oracle parse is broken", totalHunks, cases)
	}
	// A large random case that exercises the cost heuristics.
	big := randomText(rng, 6000, alphabets[2])
	bigB := big
	for range 40 {
		bigB = mutate(rng, bigB, alphabets[2])
	}
	if got, want := diffHunks(big, bigB), gitHunks(t, dir, big, bigB); len(want) < 40 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("big case: %d hunks, want %d (first differences matter)", len(got), len(want))
	}
	t.Logf("%d random diffs matched git", cases+1)
}

func TestTrimCommonTail(t *testing.T) {
	tail := strings.Repeat("same line\n", 300)
	a, b := []byte("one\n"+tail), []byte("two\nthree\n"+tail)
	ta, tb := trimCommonTail(a, b)
	if len(a)-len(ta) != len(b)-len(tb) || len(a)-len(ta) == 0 {
		t.Fatalf("trimCommonTail trimmed %d and %d bytes", len(a)-len(ta), len(b)-len(tb))
	}
	if !strings.HasSuffix(string(ta), "\n") {
		t.Fatalf("trimCommonTail cut inside a line: %q", ta[len(ta)-20:])
	}
}
