package template

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxPrewarm bounds the number of projects a [Buffer] keeps ready.
const MaxPrewarm = 10

// PrewarmDir is the folder under the projects root that holds the ready
// projects, one folder each.
const PrewarmDir = ".prewarm"

// staleTempAge is how old a temporary project folder must be before
// NewBuffer removes it as left over by a crash.
const staleTempAge = time.Hour

// BufferOptions configure a [Buffer].
type BufferOptions struct {
	// Template is the template the buffered projects are made from;
	// "" means [AppBasic].
	Template string
	// OnError, when set, receives the errors of background refills (a full
	// disk, say); they are dropped otherwise. It must not block.
	OnError func(error)
}

// BufferStatus is a snapshot of a [Buffer].
type BufferStatus struct {
	// Ready counts the projects ready to allocate.
	Ready int `json:"ready"`
	// Target is how many the buffer keeps ready (0 until [Buffer.Fill]).
	Target int `json:"target"`
	// Dir is the folder the ready projects are in: <root>/.prewarm.
	Dir string `json:"dir"`
}

// Buffer keeps projects ready under <root>/.prewarm/<template>-<id> so that
// making a new one is a rename. The ready projects are whatever is on disk,
// so they survive a restart and two processes may share a root: each ready
// project is claimed with a rename, which only one of them can win. A Buffer
// is safe for concurrent use; Close stops its background refills.
type Buffer struct {
	root     string
	dir      string
	template string
	onError  func(error)

	mu     sync.Mutex
	target int

	fillMu sync.Mutex // one filler at a time: Fill or the refiller

	kick   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// NewBuffer returns the prewarm buffer of the projects root root (absolute;
// created when missing) and starts its background refiller, which keeps
// [BufferStatus.Target] projects ready once [Buffer.Fill] set a target. It
// removes temporary project folders a crash left in root (older than an
// hour).
func NewBuffer(root string, opts BufferOptions) (*Buffer, error) {
	tmpl := opts.Template
	if tmpl == "" {
		tmpl = AppBasic
	}
	if _, ok := Lookup(tmpl); !ok {
		return nil, unknownTemplateError{}
	}
	if !filepath.IsAbs(root) {
		return nil, &invalidError{"the projects folder must be an absolute path"}
	}
	dir := filepath.Join(root, PrewarmDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the prewarm folder: %w", err)
	}
	removeStaleTemps(root, time.Now().Add(-staleTempAge))
	ctx, cancel := context.WithCancel(context.Background())
	b := &Buffer{
		root: root, dir: dir, template: tmpl, onError: opts.OnError,
		kick: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{}),
	}
	go b.refiller()
	return b, nil
}

// removeStaleTemps removes root's temporary project folders last changed
// before cutoff.
func removeStaleTemps(root string, cutoff time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// Fill sets the number of projects to keep ready to count (1 to
// [MaxPrewarm]) and makes projects until that many are ready. It returns
// how many are ready. Projects already ready beyond count stay.
func (b *Buffer) Fill(ctx context.Context, count int) (int, error) {
	if count < 1 || count > MaxPrewarm {
		return 0, &invalidError{fmt.Sprintf("the prewarm count must be between 1 and %d", MaxPrewarm)}
	}
	b.mu.Lock()
	b.target = count
	b.mu.Unlock()
	if err := b.fill(ctx); err != nil {
		return len(b.ready()), err
	}
	return len(b.ready()), nil
}

// Status reports how many projects are ready, the target and the folder.
func (b *Buffer) Status() BufferStatus {
	b.mu.Lock()
	target := b.target
	b.mu.Unlock()
	return BufferStatus{Ready: len(b.ready()), Target: target, Dir: b.dir}
}

// Allocate returns a new project named after name (as [Create] names it):
// a ready one renamed to its final folder, with its name written into it
// (fromBuffer true), or, when none is ready, one made now. Either way it
// starts a background refill up to the target.
func (b *Buffer) Allocate(ctx context.Context, name string) (dir string, fromBuffer bool, err error) {
	defer b.refill()
	p, err := prepare(b.root, b.template, name)
	if err != nil {
		return "", false, err
	}
	for _, id := range b.ready() {
		if err := ctx.Err(); err != nil {
			return "", false, err
		}
		// Claim it: only one renamer of .prewarm/<id> wins.
		claimed := filepath.Join(b.root, tempPrefix+id+"-"+randomID())
		if err := os.Rename(filepath.Join(b.dir, id), claimed); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // another allocator took it
			}
			return "", false, fmt.Errorf("take a prewarmed project: %w", err)
		}
		now := time.Now() // no longer stale for removeStaleTemps, however old
		os.Chtimes(claimed, now, now)
		dir, err := place(ctx, claimed, b.root, p, func(p params) error {
			return render(claimed, b.template, p, true)
		})
		if err != nil {
			os.RemoveAll(claimed)
			return "", false, err
		}
		return dir, true, nil
	}
	dir, err = Create(ctx, b.root, b.template, name)
	return dir, false, err
}

// Close stops the background refiller and waits for it; a project being
// made is abandoned (its temporary folder removed). Ready projects stay on
// disk for the next Buffer.
func (b *Buffer) Close() {
	b.cancel()
	<-b.done
}

// ready lists the ids of the ready projects of b's template.
func (b *Buffer) ready() []string {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), b.template+"-") {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// refill asks the refiller to top the buffer up.
func (b *Buffer) refill() {
	select {
	case b.kick <- struct{}{}:
	default: // a refill is already due
	}
}

func (b *Buffer) refiller() {
	defer close(b.done)
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.kick:
			if err := b.fill(b.ctx); err != nil && b.ctx.Err() == nil && b.onError != nil {
				b.onError(err)
			}
		}
	}
}

// fill makes projects until the target is ready.
func (b *Buffer) fill(ctx context.Context) error {
	b.fillMu.Lock()
	defer b.fillMu.Unlock()
	for {
		b.mu.Lock()
		target := b.target
		b.mu.Unlock()
		if len(b.ready()) >= target {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.makeOne(ctx); err != nil {
			return fmt.Errorf("prewarm a project: %w", err)
		}
	}
}

// makeOne writes one ready project: rendered in a temporary folder, then
// renamed into .prewarm.
func (b *Buffer) makeOne(ctx context.Context) error {
	tmp, err := makeTemp(b.root)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	name := defaultName(b.template)
	if err := render(tmp, b.template, params{Name: name, Slug: Slug(name)}, false); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(b.dir, b.template+"-"+randomID())); err != nil {
		return err
	}
	syncDir(b.dir)
	return nil
}
