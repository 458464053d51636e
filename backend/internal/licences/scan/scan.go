// Package scan finds the libraries a meith binary bundles and their
// licences: the Go modules linked into the desktop, dev and headless builds
// (go list -deps with each build's tags) and the frontend's production npm
// packages (frontend/package-lock.json). The licences package's generator
// writes its table from it, and the table's test checks the table against
// it, so a new dependency cannot be forgotten.
package scan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Entry is one bundled library.
type Entry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Licence string `json:"licence"`
}

// SeeLicenceFile is the licence of a library the classifier does not
// recognise (or whose licence file is missing).
const SeeLicenceFile = "see licence file"

// Build is one way meith is built: its tags and whether cgo is on.
type Build struct {
	Tags string
	Cgo  bool
}

// Builds are the binaries meith ships: the desktop app (scripts/run.sh), the
// dev binary (scripts/e2e.sh) and the headless runtime.
var Builds = []Build{
	{Tags: "desktop,production,webkit2_41", Cgo: true},
	{Tags: "dev,webkit2_41", Cgo: true},
	{Tags: "headless", Cgo: false},
}

// Module is a Go module linked into a build.
type Module struct {
	Path    string
	Version string
	// Dir is where its source is (the module cache, or a replacement's
	// directory).
	Dir string
}

// maxListOutput bounds what go list may print.
const maxListOutput = 64 << 20

// LinkedModules returns the modules (not the main one) whose packages are
// linked into any of builds of the main package in root, sorted by path.
func LinkedModules(ctx context.Context, root string, builds []Build) ([]Module, error) {
	seen := map[string]Module{}
	for _, b := range builds {
		cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-tags", b.Tags,
			"-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", ".")
		cmd.Dir = root
		cgo := "CGO_ENABLED=0"
		if b.Cgo {
			cgo = "CGO_ENABLED=1"
		}
		cmd.Env = append(os.Environ(), cgo)
		var stderr bytes.Buffer
		cmd.Stderr = &limitWriter{w: &stderr, n: 64 << 10}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		sc := bufio.NewScanner(io.LimitReader(out, maxListOutput))
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) == 3 {
				seen[f[0]] = Module{Path: f[0], Version: f[1], Dir: f[2]}
			}
		}
		if err := errors.Join(sc.Err(), cmd.Wait()); err != nil {
			return nil, fmt.Errorf("go list -tags %s: %w: %s", b.Tags, err, strings.TrimSpace(stderr.String()))
		}
	}
	mods := make([]Module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// licenceFile matches the names of licence files, in order of preference.
var licenceFile = regexp.MustCompile(`^(?i)(licen[cs]e|copying)(\.md|\.txt|\.rst)?$`)

// maxLicenceBytes bounds how much of a licence file is read.
const maxLicenceBytes = 256 << 10

// GoLicence classifies the licence of the module in dir from its licence
// file (SeeLicenceFile when none is found or it is not recognised).
func GoLicence(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read module directory: %w", err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && licenceFile.MatchString(e.Name()) {
			f, err := os.Open(filepath.Join(dir, e.Name()))
			if err != nil {
				return "", fmt.Errorf("open licence file: %w", err)
			}
			text, err := io.ReadAll(io.LimitReader(f, maxLicenceBytes))
			f.Close()
			if err != nil {
				return "", fmt.Errorf("read licence file: %w", err)
			}
			return Classify(string(text)), nil
		}
	}
	return SeeLicenceFile, nil
}

// space collapses runs of white space for matching.
var space = regexp.MustCompile(`\s+`)

// markers are the phrases that open each licence's text (several for ISC's
// two wordings).
var markers = []struct{ licence, phrase string }{
	{"Apache-2.0", "apache license"},
	{"MPL-2.0", "mozilla public license"},
	{"MIT", "permission is hereby granted, free of charge, to any person obtaining a copy"},
	{"ISC", "permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted"},
	{"ISC", "permission to use, copy, modify, and distribute this software for any purpose with or without fee is hereby granted"},
	{"BSD", "redistribution and use in source and binary forms"},
}

// Classify names the licence of a licence file's text: MIT, BSD-2-Clause,
// BSD-3-Clause, Apache-2.0, ISC or MPL-2.0, else SeeLicenceFile. A file
// with several licences (a library with vendored parts) is named by the
// first one in it, the library's own.
func Classify(text string) string {
	t := strings.ToLower(space.ReplaceAllString(text, " "))
	best, at := SeeLicenceFile, len(t)
	for _, m := range markers {
		if i := strings.Index(t, m.phrase); i >= 0 && i < at {
			best, at = m.licence, i
		}
	}
	rest := t[min(at, len(t)):]
	switch best {
	case "Apache-2.0":
		if !strings.Contains(rest, "version 2.0") {
			return SeeLicenceFile
		}
	case "MPL-2.0":
		if !strings.Contains(rest, "version 2.0") && !strings.Contains(rest, "v. 2.0") {
			return SeeLicenceFile
		}
	case "BSD":
		for _, third := range []string{"neither the name", "names of its contributors", "name of the copyright holder"} {
			if strings.Contains(rest, third) {
				return "BSD-3-Clause"
			}
		}
		return "BSD-2-Clause"
	}
	return best
}

// maxLockBytes bounds the package-lock.json read.
const maxLockBytes = 32 << 20

// NPMProduction returns the npm packages of lockPath (a package-lock.json,
// lockfile version 2 or 3) that the production bundle may contain: every
// package not marked dev-only, plus the bundleRuntime ones (a compiler whose
// runtime is compiled into the bundle, like svelte, although it is a dev
// dependency). Sorted by name; the licence is the lockfile's.
func NPMProduction(lockPath string, bundleRuntime ...string) ([]Entry, error) {
	f, err := os.Open(lockPath)
	if err != nil {
		return nil, fmt.Errorf("open package lock: %w", err)
	}
	defer f.Close()
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version     string `json:"version"`
			License     string `json:"license"`
			Dev         bool   `json:"dev"`
			DevOptional bool   `json:"devOptional"`
			Link        bool   `json:"link"`
		} `json:"packages"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxLockBytes)).Decode(&lock); err != nil {
		return nil, fmt.Errorf("decode package lock: %w", err)
	}
	if lock.LockfileVersion < 2 {
		return nil, fmt.Errorf("package lock version %d has no packages map: run npm install with npm 7 or later", lock.LockfileVersion)
	}
	byName := map[string]Entry{}
	for key, p := range lock.Packages {
		i := strings.LastIndex(key, "node_modules/")
		if key == "" || i < 0 || p.Link {
			continue
		}
		name := key[i+len("node_modules/"):]
		if (p.Dev || p.DevOptional) && !slices.Contains(bundleRuntime, name) {
			continue
		}
		lic := p.License
		if lic == "" {
			lic = SeeLicenceFile
		}
		e := Entry{Name: name, Version: p.Version, Licence: lic}
		if old, ok := byName[name]; ok && old.Version != e.Version {
			// Two versions of one package: keep both.
			byName[name+"@"+e.Version] = e
			continue
		}
		byName[name] = e
	}
	out := make([]Entry, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return strings.Compare(path.Join(a.Name, a.Version), path.Join(b.Name, b.Version))
	})
	return out, nil
}
