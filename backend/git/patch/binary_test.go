package patch

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// TestBinaryPatchAppliesWithGit: with UnifiedOptions.Binary a binary
// change (modified, added, deleted; small and multi-line data) is a "GIT
// binary patch" that git apply applies forward and in reverse, with git's
// full object names on the index line.
func TestBinaryPatchAppliesWithGit(t *testing.T) {
	rnd := rand.New(rand.NewSource(17))
	big := make([]byte, 5000)
	rnd.Read(big)
	for _, tc := range []struct {
		name     string
		old, new []byte
	}{
		{"modified", []byte("\x00\x01\x02old"), []byte("\x00\x01\x02new and longer")},
		{"added", nil, append([]byte("PNG\x00"), big[:100]...)},
		{"deleted", []byte("\x00gone"), nil},
		{"incompressible", big[:3000], big},
		{"text to binary", []byte("text\n"), []byte("\x00bin")},
		{"empty new", []byte("\x00x"), []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGitRepo(t)
			path := filepath.Join(r.dir, "f.bin")
			f := File{OldPath: "f.bin", NewPath: "f.bin", Old: tc.old, New: tc.new, OldMode: filemode.Regular, NewMode: filemode.Regular}
			if tc.old == nil {
				f.OldMode = filemode.Empty
				r.must(nil, "commit", "-q", "--allow-empty", "-m", "base")
			} else {
				os.WriteFile(path, tc.old, 0o644)
				r.must(nil, "add", "f.bin")
				r.must(nil, "commit", "-q", "-m", "base")
			}
			if tc.new == nil {
				f.NewMode = filemode.Empty
			}
			opts := DefaultUnifiedOptions()
			opts.Binary = true
			text, st, err := Unified(context.Background(), f, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Binary || !bytes.Contains(text, []byte("\nGIT binary patch\nliteral ")) {
				t.Fatalf("not a binary patch:\n%s", text)
			}
			oldName, newName := BlobHash(tc.old), BlobHash(tc.new)
			if tc.old == nil {
				oldName = nullHash
			}
			if tc.new == nil {
				newName = nullHash
			}
			if !strings.Contains(string(text), "\nindex "+oldName+".."+newName) {
				t.Errorf("no full index line %s..%s:\n%s", oldName, newName, text)
			}
			patchFile := filepath.Join(t.TempDir(), "p.patch")
			os.WriteFile(patchFile, text, 0o644)
			r.must(nil, "apply", "--check", patchFile)
			r.must(nil, "apply", patchFile)
			got, err := os.ReadFile(path)
			if tc.new == nil {
				if err == nil {
					t.Errorf("f.bin still exists after the deletion")
				}
			} else if err != nil || !bytes.Equal(got, tc.new) {
				t.Errorf("after git apply: %q, %v; want %q", got, err, tc.new)
			}
			r.must(nil, "apply", "-R", patchFile)
			got, err = os.ReadFile(path)
			if tc.old == nil {
				if err == nil {
					t.Errorf("f.bin exists after reverting the addition")
				}
			} else if err != nil || !bytes.Equal(got, tc.old) {
				t.Errorf("after git apply -R: %q, %v; want %q", got, err, tc.old)
			}
			// Parse takes it back (as a binary patch without hunks).
			fps, err := Parse(text)
			if err != nil || len(fps) != 1 || !fps[0].IsBinary {
				t.Errorf("Parse: %+v, %v", fps, err)
			}
		})
	}
	// Without the option: git's "Binary files … differ".
	text, _, err := Unified(context.Background(), File{OldPath: "f", NewPath: "f", Old: []byte("\x00a"), New: []byte("\x00b"),
		OldMode: filemode.Regular, NewMode: filemode.Regular}, nil)
	if err != nil || !bytes.HasSuffix(text, []byte("Binary files a/f and b/f differ\n")) {
		t.Errorf("default binary patch = %q, %v", text, err)
	}
}
