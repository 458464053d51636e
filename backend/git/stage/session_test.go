package stage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withSession writes the index only when the change succeeds, and always
// lets go of index.lock; git itself reads the result.
func TestWithSession(t *testing.T) {
	isolate(t)
	root := newRepoDir(t)
	write(t, root, "a.txt", "one\n", 0o644)
	write(t, root, "b.txt", "two\n", 0o644)
	ctx := context.Background()
	r := open(t, root)
	lock := filepath.Join(root, ".git", "index.lock")

	before := readIndexBytes(t, root)
	refused := errors.New("refused")
	err := withSession(ctx, r, func(s *session) error {
		fi, err := os.Lstat(r.Abs("a.txt"))
		if err != nil {
			return err
		}
		if err := s.stageFile("a.txt", fi); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("withSession(failing change) = %v, want the change's error", err)
	}
	if !bytes.Equal(before, readIndexBytes(t, root)) {
		t.Errorf("a failed change wrote the index")
	}
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Errorf("index.lock after a failed change: %v, want it gone", err)
	}

	func() {
		defer func() { _ = recover() }()
		_ = withSession(ctx, r, func(*session) error { panic("boom") })
	}()
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Errorf("index.lock after a panicking change: %v, want it gone", err)
	}

	err = withSession(ctx, r, func(s *session) error {
		fi, err := os.Lstat(r.Abs("b.txt"))
		if err != nil {
			return err
		}
		return s.stageFile("b.txt", fi)
	})
	if err != nil {
		t.Fatalf("withSession(staging b.txt) = %v", err)
	}
	if got := strings.TrimSpace(gitT(t, root, "diff", "--cached", "--name-only")); got != "b.txt" {
		t.Errorf("git diff --cached --name-only = %q, want b.txt", got)
	}
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Errorf("index.lock after a written change: %v, want it gone", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	if err := withSession(cancelled, r, func(*session) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("withSession(cancelled) = %v (change ran: %v), want context.Canceled before the change", err, ran)
	}
}
