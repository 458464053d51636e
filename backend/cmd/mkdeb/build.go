package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"

	"github.com/meith-dev/meith/backend/cli"
)

// options are mkdeb's inputs.
type options struct {
	Binary  string // the desktop binary
	Version string // the package version
	Arch    string // the Debian architecture
	Icon    string // a square PNG, scaled to iconSizes
	Desktop string // the .desktop file
	Date    string // the man page's date
	OutDir  string // where the .deb goes
}

// depends are the runtime libraries the desktop binary links (readelf -d:
// libwebkit2gtk-4.1, libjavascriptcoregtk-4.1, libsoup-3.0, GTK 3, GLib;
// libwebkit2gtk-4.1-0 pulls in the rest) and the C library.
var depends = []string{"libwebkit2gtk-4.1-0", "libgtk-3-0", "libc6"}

// recommends: browser tabs drive Chromium; go-git's local clones run git.
var recommends = []string{"chromium", "git"}

// debianVersion is the subset of Debian's version syntax scripts/version.sh
// produces: no epoch, no revision.
var debianVersion = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)

// debianArchName is a plausible Debian architecture name.
var debianArchName = regexp.MustCompile(`^[a-z0-9]+$`)

// build stages the generated files in a temporary folder, writes the
// package into o.OutDir and returns its path.
func build(ctx context.Context, o options) (string, error) {
	if !debianVersion.MatchString(o.Version) {
		return "", fmt.Errorf("-version must be a Debian upstream version (digits first; letters, digits, . + ~), as scripts/version.sh prints")
	}
	if !debianArchName.MatchString(o.Arch) {
		return "", fmt.Errorf("-arch must be a Debian architecture name such as amd64")
	}
	if _, err := time.Parse("2006-01-02", o.Date); err != nil {
		return "", fmt.Errorf("-date must be YYYY-MM-DD")
	}
	for _, f := range []struct{ flag, path string }{{"-binary", o.Binary}, {"-icon", o.Icon}, {"-desktop", o.Desktop}} {
		if st, err := os.Stat(f.path); err != nil || !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s: not a regular file: %w", f.flag, statError(err))
		}
	}
	stage, err := os.MkdirTemp("", "mkdeb-")
	if err != nil {
		return "", fmt.Errorf("make a staging folder: %w", err)
	}
	defer os.RemoveAll(stage)

	contents := files.Contents{
		file(o.Binary, "/usr/bin/meith", 0o755),
		file(o.Desktop, "/usr/share/applications/meith.desktop", 0o644),
	}
	generated, err := stageGenerated(ctx, stage, o)
	if err != nil {
		return "", err
	}
	contents = append(contents, generated...)

	info := nfpm.WithDefaults(&nfpm.Info{
		Name:          "meith",
		Arch:          o.Arch,
		Platform:      "linux",
		Version:       o.Version,
		VersionSchema: "none", // scripts/version.sh already made it a Debian version
		Section:       "devel",
		Priority:      "optional",
		Maintainer:    "meith maintainers <maintainers@meith-dev.invalid>",
		Homepage:      "https://github.com/meith-dev/meith",
		Description: "Desktop developer workbench\n" +
			"meith puts browser tabs, terminals, dev servers, git and coding agents in one window.\n" +
			"Every feature is a tool that the window, the `meith` command line and agents share.",
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: recommends,
			Contents:   contents,
		},
	})
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return "", fmt.Errorf("prepare the package contents: %w", err)
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return "", fmt.Errorf("make the output folder: %w", err)
	}
	out := filepath.Join(o.OutDir, deb.Default.ConventionalFileName(info))
	tmp := out + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return "", fmt.Errorf("create the package file: %w", err)
	}
	if err := deb.Default.Package(info, f); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write the package: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write the package: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("move the package into place: %w", err)
	}
	return out, nil
}

// stageGenerated writes the icons, the man page and the completions into
// stage and returns their package entries.
func stageGenerated(ctx context.Context, stage string, o options) (files.Contents, error) {
	var contents files.Contents
	put := func(name string, data []byte, dst string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(stage, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("stage %s: %w", name, err)
		}
		contents = append(contents, file(p, dst, 0o644))
		return nil
	}

	iconFile, err := os.Open(o.Icon)
	if err != nil {
		return nil, fmt.Errorf("open the icon: %w", err)
	}
	icon, err := decodeIcon(iconFile, iconSizes[len(iconSizes)-1])
	iconFile.Close()
	if err != nil {
		return nil, err
	}
	for _, size := range iconSizes {
		var b bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, scaleIcon(icon, size)); err != nil {
			return nil, fmt.Errorf("encode the %d-pixel icon: %w", size, err)
		}
		dst := fmt.Sprintf("/usr/share/icons/hicolor/%dx%d/apps/meith.png", size, size)
		if err := put(fmt.Sprintf("icon-%d.png", size), b.Bytes(), dst); err != nil {
			return nil, err
		}
	}

	var man bytes.Buffer
	if err := cli.WriteManPage(&man, o.Version, o.Date); err != nil {
		return nil, fmt.Errorf("write the man page: %w", err)
	}
	gz, err := gzipNoName(man.Bytes())
	if err != nil {
		return nil, fmt.Errorf("compress the man page: %w", err)
	}
	if err := put("meith.1.gz", gz, "/usr/share/man/man1/meith.1.gz"); err != nil {
		return nil, err
	}

	completions := map[string]string{
		"bash": "/usr/share/bash-completion/completions/meith",
		"zsh":  "/usr/share/zsh/vendor-completions/_meith",
		"fish": "/usr/share/fish/vendor_completions.d/meith.fish",
	}
	for _, shell := range cli.ShellNames {
		var b bytes.Buffer
		if err := cli.WriteCompletion(&b, shell); err != nil {
			return nil, fmt.Errorf("write the %s completion: %w", shell, err)
		}
		if err := put("completion."+shell, b.Bytes(), completions[shell]); err != nil {
			return nil, err
		}
	}
	return contents, nil
}

// gzipNoName compresses data at the best level without a file name or
// time in the header (reproducible, as dh_compress does it).
func gzipNoName(data []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// file is a package entry for a regular file, owned by root.
func file(src, dst string, mode os.FileMode) *files.Content {
	return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode}}
}

// statError turns a nil stat error (the path exists but is not a regular
// file) into one.
func statError(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("it is a folder or a special file")
}
