package status

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// randomOps mutates a repository at random: worktree edits, staging,
// renames, mode changes, ignore rules. It returns the paths it touched (for
// Invalidate).
type randomRepo struct {
	t   *testing.T
	dir string
	rng *rand.Rand
}

var randomNames = []string{"a.txt", "b.go", "c d.md", "ü.txt", "x/y.txt", "x/z/w.txt", "x/z/v.bin", "p/q/r/s.txt", "node_modules/m.js", "build/out.o"}

func (rr *randomRepo) pick() string { return randomNames[rr.rng.Intn(len(randomNames))] }

func (rr *randomRepo) content() string {
	var b strings.Builder
	n := rr.rng.Intn(30)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d %d\n", i, rr.rng.Intn(3))
	}
	return b.String()
}

func (rr *randomRepo) step() []string {
	t, d := rr.t, rr.dir
	p := rr.pick()
	abs := filepath.Join(d, filepath.FromSlash(p))
	switch rr.rng.Intn(10) {
	case 0, 1, 2:
		write(t, d, p, rr.content())
	case 3:
		os.RemoveAll(abs)
	case 4:
		if _, err := os.Stat(abs); err == nil {
			run(t, d, "add", "-f", "--", p)
		}
	case 5:
		run(t, d, "add", "-A")
	case 6:
		q := rr.pick()
		if _, err := os.Stat(abs); err == nil && q != p && !strings.HasPrefix(q, p+"/") && !strings.HasPrefix(p, q+"/") {
			os.MkdirAll(filepath.Dir(filepath.Join(d, filepath.FromSlash(q))), 0o755)
			os.RemoveAll(filepath.Join(d, filepath.FromSlash(q)))
			if err := os.Rename(abs, filepath.Join(d, filepath.FromSlash(q))); err == nil {
				return []string{p, q}
			}
		}
	case 7:
		if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
			os.Chmod(abs, fi.Mode()^0o100)
		}
	case 8:
		write(t, d, ".gitignore", []string{"", "*.o\n", "node_modules/\n", "*.bin\n!x/z/v.bin\n", "x/\n"}[rr.rng.Intn(5)])
		return []string{".gitignore"}
	case 9:
		if rr.rng.Intn(3) == 0 {
			commitAll(t, d, "step")
		}
	}
	return []string{p}
}

func TestRandomRepositoriesMatchGit(t *testing.T) {
	isolateGit(t)
	seeds := 6
	steps := 12
	if testing.Short() {
		seeds, steps = 2, 6
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rr := &randomRepo{t: t, dir: newRepo(t), rng: rand.New(rand.NewSource(int64(seed)))}
			for i := 0; i < 4; i++ {
				write(t, rr.dir, rr.pick(), rr.content())
			}
			commitAll(t, rr.dir, "base")
			watched := engineFor(t, rr.dir)
			watched.SetWatched(true)
			if _, err := watched.Status(context.Background(), Options{}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < steps; i++ {
				touched := rr.step()
				watched.Invalidate(touched...)
				want := oracle(t, rr.dir)
				checkAgainstGit(t, rr.dir)
				got, err := watched.Status(context.Background(), Options{})
				if err != nil {
					t.Fatal(err)
				}
				compareLines(t, fmt.Sprintf("watched engine after step %d (%v)", i, touched), normalize(got), want)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func TestRandomRenamesMatchGit(t *testing.T) {
	isolateGit(t)
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			dir := newRepo(t)
			texts := map[string][]string{}
			for i := 0; i < 8; i++ {
				var lines []string
				for j := 0; j < 10+rng.Intn(40); j++ {
					lines = append(lines, fmt.Sprintf("%d-%d some text %d", i, j, rng.Intn(5)))
				}
				name := fmt.Sprintf("dir%d/file%d.txt", rng.Intn(3), i)
				texts[name] = lines
				write(t, dir, name, strings.Join(lines, "\n")+"\n")
			}
			commitAll(t, dir, "base")
			for name, lines := range texts {
				if rng.Intn(3) == 0 {
					continue // stays
				}
				os.Remove(filepath.Join(dir, filepath.FromSlash(name)))
				// Keep a random share of the lines, change the rest.
				keep := rng.Float64()
				var out []string
				for _, l := range lines {
					if rng.Float64() < keep {
						out = append(out, l)
					} else {
						out = append(out, fmt.Sprintf("changed %d", rng.Intn(1000)))
					}
				}
				base := filepath.Base(name)
				if rng.Intn(2) == 0 {
					base = fmt.Sprintf("renamed%d.txt", rng.Intn(100))
				}
				write(t, dir, fmt.Sprintf("new%d/%s", rng.Intn(3), base), strings.Join(out, "\n")+"\n")
			}
			run(t, dir, "add", "-A")
			checkAgainstGit(t, dir)
		})
	}
}
