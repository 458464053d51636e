package find

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/meith-dev/meith/backend/git/gittest"
)

// searchFixture is ignoreFixture with a needle in files of every kind.
func searchFixture(t *testing.T) string {
	t.Helper()
	dir := ignoreFixture(t)
	w := func(p, s string) { gittest.Write(t, dir, p, s, 0o644) }
	w("src/main.go", "package main\n\n// Needle in a comment\nfunc main() { needle() }\nfunc needle() {}\n")
	w("src/util/strings.go", "package util\n// no match here\nvar NEEDLE = \"needle haystack needle\"\n")
	w("docs/readme.md", "# Docs\nA needle.\n\nAnother line with needles.\n")
	w("keep.log", "log needle\n")
	w("a.log", "ignored needle\n")
	w("node_modules/pkg/index.js", "needle in node_modules\n")
	w("dist/app.js", "tracked dist needle\n")
	w("dist/untracked.js", "untracked dist needle\n")
	w("tracked-ignored/keep.txt", "tracked but ignored folder: needle\n")
	w("tracked-ignored/new.txt", "untracked in an ignored folder: needle\n")
	w("bin/data.bin", "needle\x00binary\nneedle\n")
	w("latin1.txt", "needle caf\xe9\n")
	w("big.txt", strings.Repeat("needle filler line\n", MaxFileBytes/19+10))
	w("linked/target.txt", "needle via a link\n")
	gittest.Symlink(t, dir, "link.txt", "linked/target.txt")
	gittest.Git(t, dir, "add", "src/main.go")
	return dir
}

// grepLines runs git grep on the tracked files and, with --untracked, on
// the untracked files that are not ignored (binary files skipped), and
// returns path:line for each matching line in path then line order,
// without the files meith skips on purpose (untracked files under
// IgnoredFolders, files over MaxFileBytes or not UTF-8). Both runs are
// needed: with --untracked git never enters an ignored folder, even for
// its tracked files, which a plain git grep searches.
func grepLines(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	tracked := map[string]bool{}
	for _, p := range lines(gittest.Git(t, dir, "ls-files", "-c")) {
		tracked[p] = true
	}
	type hit struct {
		path string
		line int
	}
	var hits []hit
	for _, extra := range [][]string{nil, {"--untracked"}} {
		out, stderr, err := gittest.Run(dir, nil, nil, append(append([]string{"grep", "-n", "-I"}, extra...), args...)...)
		if err != nil && strings.TrimSpace(out) != "" || stderr != "" {
			t.Fatalf("git grep %v: %v %s", args, err, stderr)
		}
		for _, l := range lines(out) {
			parts := strings.SplitN(l, ":", 3)
			p := parts[0]
			if !tracked[p] && underIgnoredFolder(p) {
				continue
			}
			if fi, err := os.Stat(filepath.Join(dir, p)); err == nil && fi.Size() > MaxFileBytes {
				continue
			}
			if p == "latin1.txt" {
				continue
			}
			var n int
			fmt.Sscan(parts[1], &n)
			hits = append(hits, hit{p, n})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmpOr(strings.Compare(a.path, b.path), a.line-b.line) })
	hits = slices.Compact(hits)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s:%d", h.path, h.line))
	}
	return got
}

func matchLines(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s:%d", m.Path, m.Line))
	}
	return slices.Compact(out)
}

func TestSearchMatchesGitGrep(t *testing.T) {
	gittest.Isolate(t)
	dir := searchFixture(t)
	for _, tc := range []struct {
		name    string
		opts    SearchOptions
		gitArgs []string
	}{
		{"literal", SearchOptions{Query: "needle", CaseSensitive: true}, []string{"-F", "needle"}},
		{"literal, case-insensitive", SearchOptions{Query: "NeEdLe"}, []string{"-i", "-F", "NeEdLe"}},
		{"literal with regexp characters", SearchOptions{Query: "main() {", CaseSensitive: true}, []string{"-F", "main() {"}},
		{"regex", SearchOptions{Query: `ne+dle\(\)`, IsRegex: true, CaseSensitive: true}, []string{"-E", `ne+dle\(\)`}},
		{"regex anchored", SearchOptions{Query: `^func [a-z]+`, IsRegex: true, CaseSensitive: true}, []string{"-E", `^func [a-z]+`}},
		{"regex at end of line", SearchOptions{Query: `needle$`, IsRegex: true}, []string{"-i", "-E", `needle$`}},
		{"regex without a literal", SearchOptions{Query: `[A-Z]{6}`, IsRegex: true, CaseSensitive: true}, []string{"-E", `[A-Z]{6}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Root, opts.Base, opts.MaxResults = dir, dir, 5000
			res, err := Search(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			got := matchLines(res.Matches)
			if want := grepLines(t, dir, tc.gitArgs...); !slices.Equal(got, want) {
				t.Errorf("matches\n%s\nwant (git grep)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if res.Truncated {
				t.Error("truncated")
			}
		})
	}
}

// What is skipped: ignored files, links, special files, binary files, files
// over the size limit and files that are not UTF-8; what is not: tracked
// files that an ignore rule or a fixed folder matches.
func TestSearchSkips(t *testing.T) {
	gittest.Isolate(t)
	dir := searchFixture(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "src", "needle.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "needle", MaxResults: 5000})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, m := range res.Matches {
		files[m.Path] = true
	}
	for _, p := range []string{"a.log", "node_modules/pkg/index.js", "dist/untracked.js", "tracked-ignored/new.txt", "bin/data.bin",
		"latin1.txt", "big.txt", "link.txt", "src/needle.fifo"} {
		if files[p] {
			t.Errorf("%s was searched", p)
		}
	}
	for _, p := range []string{"keep.log", "dist/app.js", "tracked-ignored/keep.txt", "linked/target.txt", "src/main.go"} {
		if !files[p] {
			t.Errorf("%s was not searched", p)
		}
	}
}

// utf16Col is the 1-based UTF-16 column of byte offset off in line, as
// JavaScript counts it.
func utf16Col(line string, off int) int { return len(utf16.Encode([]rune(line[:off]))) + 1 }

func TestSearchColumnsCountUTF16(t *testing.T) {
	dir := t.TempDir()
	content := strings.Join([]string{
		"needle at the start",
		"😀 needle after an emoji",
		"中文needle in CJK, 𠜎 and needle after an astral CJK",
		"\tneedle after a tab, needle twice",
		"é needle after a combining-free accent",
		"no match",
	}, "\n") + "\n"
	gittest.Write(t, dir, "f.txt", content, 0o644)
	res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "needle", CaseSensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []Match
	for i, line := range strings.Split(content, "\n") {
		for off := 0; ; {
			j := strings.Index(line[off:], "needle")
			if j < 0 {
				break
			}
			start := off + j
			want = append(want, Match{Path: "f.txt", Line: i + 1, Column: utf16Col(line, start), EndColumn: utf16Col(line, start+6), Text: line})
			off = start + 6
		}
	}
	if !slices.Equal(res.Matches, want) {
		t.Errorf("matches\n%+v\nwant\n%+v", res.Matches, want)
	}
	if res.Matches[1].Column != 4 || res.Matches[2].Column != 3 || res.Matches[3].Column != 25 || res.Matches[4].Column != 2 {
		t.Errorf("columns %d %d %d %d, want 4 3 25 2", res.Matches[1].Column, res.Matches[2].Column, res.Matches[3].Column, res.Matches[4].Column)
	}

	// A regexp match with astral characters inside it.
	gittest.Write(t, dir, "f.txt", "ab 😀😀x\n", 0o644)
	res, err = Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "😀+x", IsRegex: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].Column != 4 || res.Matches[0].EndColumn != 9 {
		t.Errorf("regexp match %+v, want column 4 endColumn 9", res.Matches)
	}
}

func TestSearchText(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 498) + "😀needle" + strings.Repeat("y", 100)
	gittest.Write(t, dir, "f.txt", "crlf needle\r\n"+long+"\n", 0o644)
	res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "needle$", IsRegex: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].Text != "crlf needle" || res.Matches[0].EndColumn != 12 {
		t.Errorf("CRLF line: %+v, want a match before \\r and the text without it", res.Matches)
	}
	res, err = Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 2 {
		t.Fatalf("matches %+v", res.Matches)
	}
	// 498 units, then the emoji (2 units) would pass 500 only with one
	// more: it fits exactly; "needle" does not.
	if got := res.Matches[1].Text; got != strings.Repeat("x", 498)+"😀" {
		t.Errorf("long line text has %d units, want the first 500 (%q…)", len(utf16.Encode([]rune(got))), got[:10])
	}
	if res.Matches[1].Column != 501 {
		t.Errorf("column %d, want 501", res.Matches[1].Column)
	}
}

// Case-insensitive search folds Unicode: the Kelvin sign is a "k", "ẞ" an
// "ß"; case-sensitive search does not fold.
func TestSearchCaseFolding(t *testing.T) {
	dir := t.TempDir()
	gittest.Write(t, dir, "f.txt", "kelvin\nKELVIN\n\u212Aelvin\nstraße\nSTRAẞE\nStrasse\n", 0o644)
	for _, tc := range []struct {
		query       string
		isRegex, cs bool
		want        []int
	}{
		{"kelvin", false, false, []int{1, 2, 3}},
		{"kelvin", false, true, []int{1}},
		{"KELVIN", true, false, []int{1, 2, 3}},
		{"straße", false, false, []int{4, 5}},
		{"elvin", false, false, []int{1, 2, 3}},
		{"k.lvin", true, false, []int{1, 2, 3}},
	} {
		res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: tc.query, IsRegex: tc.isRegex, CaseSensitive: tc.cs})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, m := range res.Matches {
			got = append(got, m.Line)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q regex=%v caseSensitive=%v: lines %v, want %v", tc.query, tc.isRegex, tc.cs, got, tc.want)
		}
	}
}

func TestSearchBadQuery(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		opts  SearchOptions
		field string
	}{
		{SearchOptions{Query: "secret(", IsRegex: true}, "query"},
		{SearchOptions{Query: "a[z-a]", IsRegex: true}, "query"},
		{SearchOptions{Query: `\p{Nope}`, IsRegex: true}, "query"},
		{SearchOptions{Query: ""}, "query"},
		{SearchOptions{Query: "two\nlines"}, "query"},
		{SearchOptions{Query: "x", Glob: "*.{go"}, "glob"},
		{SearchOptions{Query: "x", Glob: "[a-"}, "glob"},
	} {
		opts := tc.opts
		opts.Root, opts.Base = dir, dir
		_, err := Search(context.Background(), opts)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Field != tc.field || !IsQueryError(err) {
			t.Errorf("%+v: %v, want a QueryError on %s", tc.opts, err, tc.field)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("the error quotes the query: %v", err)
		}
	}
}

// maxResults gives the first matches in path order whatever the
// parallelism, and says there were more.
func TestSearchMaxResults(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		gittest.Write(t, dir, fmt.Sprintf("d%02d/f%03d.txt", i%7, i), "hit one\nmiss\nhit two\n", 0o644)
	}
	all, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "hit", MaxResults: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Matches) != 600 || all.Truncated || all.FilesSearched != 300 {
		t.Fatalf("full search: %d matches, truncated %v, %d files", len(all.Matches), all.Truncated, all.FilesSearched)
	}
	if !slices.IsSortedFunc(all.Matches, func(a, b Match) int {
		return cmpOr(strings.Compare(a.Path, b.Path), a.Line-b.Line)
	}) {
		t.Error("matches are not in path then line order")
	}
	for _, max := range []int{1, 5, 99, 599, 600} {
		for range 5 {
			res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "hit", MaxResults: max})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Matches, all.Matches[:max]) || res.Truncated != (max < 600) {
				t.Fatalf("max %d: %d matches (first %v), truncated %v; want the first %d of the full search", max, len(res.Matches), res.Matches[:min(1, len(res.Matches))], res.Truncated, max)
			}
			if want := (max + 1) / 2; max < 600 && res.FilesSearched != want {
				t.Errorf("max %d: filesSearched %d, want %d", max, res.FilesSearched, want)
			}
		}
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// Cancellation stops a search between files.
func TestSearchCancelled(t *testing.T) {
	dir := t.TempDir()
	for i := range 400 {
		gittest.Write(t, dir, fmt.Sprintf("d%d/f%03d.txt", i%9, i), "content\n", 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Reads are counted from when cancel has returned: the worker that
	// makes the 20th read may be preempted before it cancels while the
	// others go on reading, as they should (found by a CI run: 24 reads).
	var read, atCancel atomic.Int64
	beforeFile = func() {
		if read.Add(1) == 20 {
			cancel()
			atCancel.Store(read.Load())
		}
	}
	defer func() { beforeFile = nil }()
	_, err := Search(ctx, SearchOptions{Root: dir, Base: dir, Query: "content"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Search = %v, want context.Canceled", err)
	}
	if n, c := read.Load(), atCancel.Load(); n > c+int64(searchWorkers()) {
		t.Errorf("%d files read, %d when the cancel returned: want at most one more per worker", n, c)
	}
}

func TestSearchGlobAndPath(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.go", "a_test.go", "src/b.go", "src/c.ts", "src/d.tsx", "src/test/e.js", "test/f.go", "docs/g.md", "x.gotest"} {
		gittest.Write(t, dir, p, "hit\n", 0o644)
	}
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"", []string{"a.go", "a_test.go", "docs/g.md", "src/b.go", "src/c.ts", "src/d.tsx", "src/test/e.js", "test/f.go", "x.gotest"}},
		{"*.go", []string{"a.go", "a_test.go", "src/b.go", "test/f.go"}},
		{"*.go, !*_test.go", []string{"a.go", "src/b.go", "test/f.go"}},
		{"*.{ts,tsx}", []string{"src/c.ts", "src/d.tsx"}},
		{"src/**", []string{"src/b.go", "src/c.ts", "src/d.tsx", "src/test/e.js"}},
		{"src", []string{"src/b.go", "src/c.ts", "src/d.tsx", "src/test/e.js"}},
		{"src/*.go", []string{"src/b.go"}},
		{"**/*.go", []string{"a.go", "a_test.go", "src/b.go", "test/f.go"}},
		{"test", []string{"src/test/e.js", "test/f.go"}},
		{"!test", []string{"a.go", "a_test.go", "docs/g.md", "src/b.go", "src/c.ts", "src/d.tsx", "x.gotest"}},
		{"[ax].*", []string{"a.go", "x.gotest"}},
		{"?.go", []string{"a.go", "src/b.go", "test/f.go"}},
	} {
		res, err := Search(context.Background(), SearchOptions{Root: dir, Base: dir, Query: "hit", Glob: tc.glob})
		if err != nil {
			t.Fatal(err)
		}
		if got := matchPaths(res.Matches); !slices.Equal(got, tc.want) {
			t.Errorf("glob %q: %v, want %v", tc.glob, got, tc.want)
		}
	}
	// A sub-folder and a single file, paths relative to the base.
	res, err := Search(context.Background(), SearchOptions{Root: filepath.Join(dir, "src"), Base: dir, Query: "hit", Glob: "*.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if got := matchPaths(res.Matches); !slices.Equal(got, []string{"src/c.ts"}) {
		t.Errorf("sub-folder: %v", got)
	}
	res, err = Search(context.Background(), SearchOptions{Root: filepath.Join(dir, "src", "b.go"), Base: filepath.Join(dir, "docs"), Query: "hit"})
	if err != nil {
		t.Fatal(err)
	}
	if got := matchPaths(res.Matches); !slices.Equal(got, []string{"../src/b.go"}) || res.FilesSearched != 1 {
		t.Errorf("one file: %v, %d files", got, res.FilesSearched)
	}
}

func matchPaths(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path)
	}
	return slices.Compact(out)
}
