package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// goSource reads, from the Go source of this module, what reflection does
// not give: the doc comments of types and fields and the constants of a
// named string or integer type (its TypeScript union). Packages outside
// the module have neither; their types are still generated, without docs.
type goSource struct {
	modRoot string // the folder of go.mod
	modPath string // the module path
	pkgs    map[string]*pkgSource
}

// pkgSource is what one package declares.
type pkgSource struct {
	typeDocs  map[string]string
	fieldDocs map[string]map[string]string // type name → Go field name → doc
	consts    map[string][]string          // type name → TypeScript literals, in declaration order
}

// findModule returns the folder of the go.mod at or above dir and its
// module path.
func findModule(dir string) (root, path string, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("find go.mod: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.Lines(string(data)) {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
			}
			return "", "", fmt.Errorf("find go.mod: %s has no module line", filepath.Join(dir, "go.mod"))
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("find go.mod: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("find go.mod: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

func newGoSource(modRoot, modPath string) *goSource {
	return &goSource{modRoot: modRoot, modPath: modPath, pkgs: map[string]*pkgSource{}}
}

// pkg returns what the package with import path p declares; an empty
// pkgSource for a package outside the module.
func (s *goSource) pkg(p string) (*pkgSource, error) {
	if ps, ok := s.pkgs[p]; ok {
		return ps, nil
	}
	ps := &pkgSource{typeDocs: map[string]string{}, fieldDocs: map[string]map[string]string{}, consts: map[string][]string{}}
	s.pkgs[p] = ps
	rel, ok := strings.CutPrefix(p, s.modPath)
	if !ok || (rel != "" && rel[0] != '/') {
		return ps, nil
	}
	dir := filepath.Join(s.modRoot, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read package %s: %w", p, err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse package %s: %w", p, err)
		}
		ps.add(f)
	}
	return ps, nil
}

// add records the type docs, field docs and typed constants of one file.
func (ps *pkgSource) add(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.TYPE:
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if text := docText(doc); text != "" {
					ps.typeDocs[ts.Name.Name] = text
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					doc := docText(fld.Doc)
					if doc == "" {
						doc = docText(fld.Comment)
					}
					if doc == "" {
						continue
					}
					for _, n := range fld.Names {
						if ps.fieldDocs[ts.Name.Name] == nil {
							ps.fieldDocs[ts.Name.Name] = map[string]string{}
						}
						ps.fieldDocs[ts.Name.Name][n.Name] = doc
					}
				}
			}
		case token.CONST:
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != len(vs.Names) {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := tsLiteral(v); ok {
						ps.consts[typ.Name] = append(ps.consts[typ.Name], lit)
					}
				}
			}
		}
	}
}

// tsLiteral turns a Go string or integer literal into a TypeScript one.
func tsLiteral(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok {
		return "", false
	}
	switch bl.Kind {
	case token.STRING:
		s, err := strconv.Unquote(bl.Value)
		if err != nil {
			return "", false
		}
		return quoteTS(s), true
	case token.INT:
		n, err := strconv.ParseInt(bl.Value, 0, 64)
		if err != nil {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// docText is a comment's text without markers, trimmed; "" for none.
func docText(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.TrimSpace(cg.Text())
}

// quoteTS returns s as a single-quoted TypeScript string literal.
func quoteTS(s string) string {
	var b bytes.Buffer
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x2028 || r == 0x2029 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}
