package patch

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// File describes the two versions of one file to compare.
type File struct {
	// OldPath and NewPath are repository-relative slash paths; they differ
	// only for a rename. Give the same path twice otherwise (an empty one is
	// taken from the other).
	OldPath, NewPath string
	// OldMode and NewMode are the git modes; Empty on the old side means the
	// file is added, Empty on the new side that it is deleted. Both Empty
	// compares content without any mode information.
	OldMode, NewMode filemode.FileMode
	// OldHash and NewHash are the blobs' full hex object names for the
	// "index" line. When empty they are computed as SHA-1 blob ids of Old and
	// New (all zeros for a missing side).
	OldHash, NewHash string
	Old, New         []byte
	// Similarity is the rename's "similarity index" percentage; it is only
	// written when the paths differ.
	Similarity int
}

// UnifiedOptions controls the patch text. Use DefaultUnifiedOptions and
// change what you need; Context is used as given (0 is "git diff -U0").
type UnifiedOptions struct {
	// Context is the number of context lines around changes (git: 3).
	Context int
	// FuncNames writes git's default function-name context after the hunk
	// header: the nearest line above the hunk that starts with a letter,
	// "_" or "$", cut to 80 bytes (git without a diff driver).
	FuncNames bool
	// IndentHeuristic places ambiguous changes like git's default
	// diff.indentHeuristic=true.
	IndentHeuristic bool
	// Abbrev is how many hex digits of the object names the "index" line
	// shows (git: 7 in small repositories, more when needed for uniqueness).
	Abbrev int
	// Binary writes a binary change as "git diff --binary" does: full object
	// names on the "index" line and a "GIT binary patch" that git apply can
	// apply, instead of "Binary files … differ".
	Binary bool
}

// DefaultUnifiedOptions returns the options that make Unified print what a
// plain "git diff" prints.
func DefaultUnifiedOptions() UnifiedOptions {
	return UnifiedOptions{Context: 3, FuncNames: true, IndentHeuristic: true, Abbrev: 7}
}

// Stat is the numstat of a file's change.
type Stat struct {
	Additions, Deletions int
	Binary               bool
}

// Unified returns the git-style patch for one file, byte for byte what
// "git diff" prints for it (no color, default diff driver, core.quotePath on)
// when the same options are used, together with its line counts. A nil opts
// means DefaultUnifiedOptions. An unchanged file yields an empty patch.
//
// git's output can differ in two rare ways: a diff driver set by
// .gitattributes changes the function-name context, and git lengthens the
// abbreviated object names when 7 digits are ambiguous in the repository
// (pass a larger Abbrev then).
func Unified(ctx context.Context, f File, opts *UnifiedOptions) ([]byte, Stat, error) {
	fps, st, err := Build(ctx, f, opts)
	if err != nil {
		return nil, Stat{}, err
	}
	return FormatAll(fps), st, nil
}

// Build is Unified without the final formatting: it returns the structured
// patch, usually one FilePatch; a change between a file and a symlink (or
// submodule) is two, a deletion and a creation, as git prints it. The lines
// of the hunks share memory with f.Old and f.New.
func Build(ctx context.Context, f File, opts *UnifiedOptions) ([]FilePatch, Stat, error) {
	o := DefaultUnifiedOptions()
	if opts != nil {
		o = *opts
	}
	if o.Context < 0 {
		o.Context = 0
	}
	if o.Abbrev <= 0 {
		o.Abbrev = 7
	}
	if f.OldPath == "" {
		f.OldPath = f.NewPath
	}
	if f.NewPath == "" {
		f.NewPath = f.OldPath
	}
	if f.OldMode != filemode.Empty && f.NewMode != filemode.Empty && f.OldMode&0o170000 != f.NewMode&0o170000 {
		del, add := f, f
		del.NewMode, del.New, del.NewHash, del.NewPath = filemode.Empty, nil, "", f.OldPath
		add.OldMode, add.Old, add.OldHash, add.OldPath = filemode.Empty, nil, "", f.NewPath
		p1, s1, err := buildOne(ctx, del, o)
		if err != nil {
			return nil, Stat{}, err
		}
		p2, s2, err := buildOne(ctx, add, o)
		if err != nil {
			return nil, Stat{}, err
		}
		st := Stat{Additions: s1.Additions + s2.Additions, Deletions: s1.Deletions + s2.Deletions, Binary: s1.Binary || s2.Binary}
		return []FilePatch{p1, p2}, st, nil
	}
	p, st, err := buildOne(ctx, f, o)
	if err != nil {
		return nil, Stat{}, err
	}
	if p.IsBinary || len(p.Hunks) > 0 || p.IsNew || p.IsDelete || p.IsRename ||
		(p.OldMode != p.NewMode) {
		return []FilePatch{p}, st, nil
	}
	return nil, st, nil
}

const nullHash = "0000000000000000000000000000000000000000"

// BlobHash returns git's SHA-1 object name of a blob with the given content.
func BlobHash(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func abbrev(hash string, n int) string {
	if len(hash) > n {
		return hash[:n]
	}
	return hash
}

func buildOne(ctx context.Context, f File, o UnifiedOptions) (FilePatch, Stat, error) {
	isNew := f.OldMode == filemode.Empty && f.NewMode != filemode.Empty
	isDelete := f.NewMode == filemode.Empty && f.OldMode != filemode.Empty
	if isNew {
		f.Old = nil
	}
	if isDelete {
		f.New = nil
	}
	oldHash, newHash := f.OldHash, f.NewHash
	if oldHash == "" {
		oldHash = BlobHash(f.Old)
		if isNew {
			oldHash = nullHash
		}
	}
	if newHash == "" {
		newHash = BlobHash(f.New)
		if isDelete {
			newHash = nullHash
		}
	}
	p := FilePatch{
		OldPath: f.OldPath, NewPath: f.NewPath,
		OldMode: f.OldMode, NewMode: f.NewMode,
		IsNew: isNew, IsDelete: isDelete,
		IsRename: f.OldPath != f.NewPath, Similarity: f.Similarity,
	}
	if isNew {
		p.OldMode = filemode.Empty
	}
	if isDelete {
		p.NewMode = filemode.Empty
	}
	binary := IsBinary(f.Old) || IsBinary(f.New)
	if oldHash == newHash {
		// Same content: only the header (mode change, rename) remains.
		return p, Stat{Binary: binary}, nil
	}
	p.OldHash, p.NewHash = abbrev(oldHash, o.Abbrev), abbrev(newHash, o.Abbrev)
	if binary {
		p.IsBinary = true
		if o.Binary {
			p.OldHash, p.NewHash = oldHash, newHash
			p.BinaryData = binaryPatch(f.Old, f.New)
		}
		return p, Stat{Binary: true}, nil
	}
	a, b := SplitLines(f.Old), SplitLines(f.New)
	changes, err := DiffContext(ctx, a, b, DiffOptions{NoIndentHeuristic: !o.IndentHeuristic})
	if err != nil {
		return FilePatch{}, Stat{}, err
	}
	var st Stat
	for _, c := range changes {
		st.Deletions += c.OldLines
		st.Additions += c.NewLines
	}
	p.Hunks = hunks(a, b, changes, o)
	return p, st, nil
}

// hunks groups changes into hunks with context, as xdiff's xdl_emit_diff.
func hunks(a, b [][]byte, changes []Change, o UnifiedOptions) []Hunk {
	var out []Hunk
	ctxLen := o.Context
	funcLine, funcPrev := "", -1
	for i := 0; i < len(changes); {
		// The hunk takes changes i..j-1: those separated by at most
		// 2*context unchanged lines.
		j := i + 1
		for j < len(changes) && changes[j].OldStart-(changes[j-1].OldStart+changes[j-1].OldLines) <= 2*ctxLen {
			j++
		}
		first, last := changes[i], changes[j-1]
		s1 := max(first.OldStart-ctxLen, 0)
		s2 := max(first.NewStart-ctxLen, 0)
		lctx := min(ctxLen, len(a)-(last.OldStart+last.OldLines), len(b)-(last.NewStart+last.NewLines))
		e1 := last.OldStart + last.OldLines + lctx
		e2 := last.NewStart + last.NewLines + lctx

		if o.FuncNames {
			for l := s1 - 1; l > funcPrev && l >= 0; l-- {
				if name, ok := funcName(a[l]); ok {
					funcLine = name
					break
				}
			}
			funcPrev = s1 - 1
		}
		h := Hunk{
			OldStart: s1 + 1, OldLines: e1 - s1,
			NewStart: s2 + 1, NewLines: e2 - s2,
			Section: funcLine,
			Lines:   make([]Line, 0, (e1-s1)+(e2-s2)),
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		for k := s1; k < first.OldStart; k++ {
			h.Lines = append(h.Lines, Line{Kind: Context, Text: a[k]})
		}
		p1, p2 := first.OldStart, first.NewStart
		for k := i; k < j; k++ {
			c := changes[k]
			for ; p1 < c.OldStart && p2 < c.NewStart; p1, p2 = p1+1, p2+1 {
				h.Lines = append(h.Lines, Line{Kind: Context, Text: a[p1]})
			}
			for x := c.OldStart; x < c.OldStart+c.OldLines; x++ {
				h.Lines = append(h.Lines, Line{Kind: Deleted, Text: a[x]})
			}
			for x := c.NewStart; x < c.NewStart+c.NewLines; x++ {
				h.Lines = append(h.Lines, Line{Kind: Added, Text: b[x]})
			}
			p1, p2 = c.OldStart+c.OldLines, c.NewStart+c.NewLines
		}
		for k := last.OldStart + last.OldLines; k < e1; k++ {
			h.Lines = append(h.Lines, Line{Kind: Context, Text: a[k]})
		}
		out = append(out, h)
		i = j
	}
	return out
}

// funcName is git's default function-name matcher (def_ff): a line that
// starts with a letter, "_" or "$", cut to 80 bytes, trailing space removed.
func funcName(line []byte) (string, bool) {
	if len(line) == 0 {
		return "", false
	}
	c := line[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$') {
		return "", false
	}
	if len(line) > 80 {
		line = line[:80]
	}
	for len(line) > 0 && isSpace(line[len(line)-1]) {
		line = line[:len(line)-1]
	}
	return string(line), true
}
