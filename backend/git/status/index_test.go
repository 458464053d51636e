package status

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIndexVersionsMatchGit(t *testing.T) {
	isolateGit(t)
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, "a/long/common/prefix/one.txt", "1\n")
			write(t, dir, "a/long/common/prefix/two.txt", "2\n")
			write(t, dir, "b.txt", "b\n")
			commitAll(t, dir, "one")
			write(t, dir, "a/long/common/prefix/three.txt", "3\n")
			run(t, dir, "add", "-N", "a/long/common/prefix/three.txt") // extended flags (v3+)
			run(t, dir, "update-index", "--index-version", v)
			write(t, dir, "b.txt", "b2\n")
			ix, err := ReadIndex(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			if ix.Version != map[string]int{"2": 3, "3": 3, "4": 4}[v] && v != "2" {
				t.Errorf("ReadIndex version = %d, want %s", ix.Version, v)
			}
			checkAgainstGit(t, dir)
		})
	}
}

func TestParseIndexRejectsDamage(t *testing.T) {
	isolateGit(t)
	dir := newRepo(t)
	for i := 0; i < 20; i++ {
		write(t, dir, strings.Repeat("d/", i%4)+"f"+string(rune('a'+i))+".txt", "x\n")
	}
	commitAll(t, dir, "one")
	for _, v := range []string{"2", "4"} {
		run(t, dir, "update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseIndex(data); err != nil {
			t.Fatalf("ParseIndex(v%s) = %v", v, err)
		}
		// Every truncation and a few corruptions give an error or a
		// result, never a panic.
		for n := 0; n < len(data); n++ {
			ParseIndex(data[:n])
		}
		for _, at := range []int{8, 11, 60, 61, 62, 70, 100, len(data) - 30} {
			bad := append([]byte(nil), data...)
			bad[at] ^= 0xff
			ParseIndex(bad)
		}
	}
	if _, err := ParseIndex([]byte("not an index at all, clearly....")); !IsBadIndex(err) {
		t.Errorf("ParseIndex(garbage) = %v, want a bad-index error", err)
	}
	run(t, dir, "update-index", "--split-index")
	_, err := ReadIndex(filepath.Join(dir, ".git", "index"))
	if !IsBadIndex(err) || !strings.Contains(err.Error(), "split index") {
		t.Errorf("ReadIndex(split index) = %v, want a split-index error", err)
	}
}
