package history

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// bigLinearRepo builds a linear history of n commits with git fast-import;
// every 1000th commit also touches rare.txt. It skips the test unless
// MEITH_BIG_TESTS is set (benchmarks always build it).
func bigLinearRepo(tb testing.TB, n int) string {
	tb.Helper()
	if _, isBench := tb.(*testing.B); !isBench && os.Getenv("MEITH_BIG_TESTS") == "" {
		tb.Skip("set MEITH_BIG_TESTS=1 to build the 10k-commit fixture")
	}
	dir := newRepo(tb)
	var sb strings.Builder
	for i := range n {
		msg := fmt.Sprintf("commit %d", i)
		fmt.Fprintf(&sb, "commit refs/heads/main\ncommitter Big Test <big@example.com> %d +0000\ndata %d\n%s\n", 1600000000+i*60, len(msg), msg)
		content := fmt.Sprintf("line %d\n", i)
		fmt.Fprintf(&sb, "M 100644 inline file%d.txt\ndata %d\n%s\n", i%50, len(content), content)
		if i%1000 == 0 {
			fmt.Fprintf(&sb, "M 100644 inline rare.txt\ndata %d\n%s\n", len(content), content)
		}
	}
	cmd := exec.Command(gitPath, "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(sb.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("fast-import: %v %s", err, out)
	}
	git(tb, dir, "reset", "-q", "--hard", "main")
	return dir
}

func BenchmarkLog30Of10k(b *testing.B) {
	dir := bigLinearRepo(b, 10000)
	r := openRepo(b, dir)
	ctx := testCtx(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Log(ctx, r, LogOptions{Limit: 30}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogRarePathOf10k(b *testing.B) {
	dir := bigLinearRepo(b, 10000)
	r := openRepo(b, dir)
	ctx := testCtx(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Log(ctx, r, LogOptions{Limit: 30, Path: "rare.txt"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBlameRareFileOf10k(b *testing.B) {
	dir := bigLinearRepo(b, 10000)
	r := openRepo(b, dir)
	ctx := testCtx(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Blame(ctx, r, "rare.txt", 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogRarePathOf10kWithCommitGraph(b *testing.B) {
	dir := bigLinearRepo(b, 10000)
	git(b, dir, "commit-graph", "write", "--reachable")
	r := openRepo(b, dir)
	ctx := testCtx(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Log(ctx, r, LogOptions{Limit: 30, Path: "rare.txt"}); err != nil {
			b.Fatal(err)
		}
	}
}
