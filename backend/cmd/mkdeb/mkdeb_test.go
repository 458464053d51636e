package main

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module root, where the icon and the menu entry live.
const repoRoot = "../../.."

// TestPackageContents builds a package around a stand-in binary and reads
// it back with dpkg-deb: the control fields and every installed path.
func TestPackageContents(t *testing.T) {
	dpkgDeb, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Skip("dpkg-deb is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "meith")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 1.2.3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	deb, err := build(context.Background(), options{
		Binary: bin, Version: "1.2.3+4.gabcdef0.dirty", Arch: "amd64", Date: "2026-12-02",
		Icon: filepath.Join(repoRoot, "frontend/public/appicon.png"), Desktop: filepath.Join(repoRoot, "build/linux/meith.desktop"),
		OutDir: filepath.Join(dir, "dist"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "dist", "meith_1.2.3+4.gabcdef0.dirty_amd64.deb"); deb != want {
		t.Errorf("package path = %s, want %s", deb, want)
	}
	fields, err := exec.Command(dpkgDeb, "--field", deb, "Package", "Version", "Architecture", "Depends", "Recommends").Output()
	if err != nil {
		t.Fatalf("dpkg-deb --field: %v", err)
	}
	for _, want := range []string{"Package: meith\n", "Version: 1.2.3+4.gabcdef0.dirty\n", "Architecture: amd64\n",
		"Depends: libwebkit2gtk-4.1-0, libgtk-3-0, libc6\n", "Recommends: chromium, git\n"} {
		if !strings.Contains(string(fields), want) {
			t.Errorf("control fields lack %q:\n%s", want, fields)
		}
	}
	listing, err := exec.Command(dpkgDeb, "--contents", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb --contents: %v", err)
	}
	want := []string{
		"-rwxr-xr-x root/root ./usr/bin/meith",
		"-rw-r--r-- root/root ./usr/share/applications/meith.desktop",
		"-rw-r--r-- root/root ./usr/share/man/man1/meith.1.gz",
		"-rw-r--r-- root/root ./usr/share/bash-completion/completions/meith",
		"-rw-r--r-- root/root ./usr/share/zsh/vendor-completions/_meith",
		"-rw-r--r-- root/root ./usr/share/fish/vendor_completions.d/meith.fish",
	}
	for _, s := range iconSizes {
		want = append(want, "-rw-r--r-- root/root ./usr/share/icons/hicolor/"+strconv.Itoa(s)+"x"+strconv.Itoa(s)+"/apps/meith.png")
	}
	var got []string
	for _, line := range strings.Split(string(listing), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && !strings.HasSuffix(f[5], "/") {
			got = append(got, f[0]+" "+f[1]+" "+f[5])
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("package files:\n got %q\nwant %q", got, want)
	}

	// The icons are PNGs of their size.
	x := filepath.Join(dir, "x")
	if out, err := exec.Command(dpkgDeb, "-x", deb, x).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	for _, s := range iconSizes {
		f, err := os.Open(filepath.Join(x, "usr/share/icons/hicolor", strconv.Itoa(s)+"x"+strconv.Itoa(s), "apps/meith.png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != s || cfg.Height != s {
			t.Errorf("%d-pixel icon: %dx%d, %v", s, cfg.Width, cfg.Height, err)
		}
	}
}

// TestBuildRejectsBadInput: a bad version, architecture, date or input file
// is an error before anything is written.
func TestBuildRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	good := options{
		Binary: filepath.Join(repoRoot, "build/linux/meith.desktop"), Version: "1.0.0", Arch: "amd64", Date: "2026-12-02",
		Icon: filepath.Join(repoRoot, "frontend/public/appicon.png"), Desktop: filepath.Join(repoRoot, "build/linux/meith.desktop"),
		OutDir: filepath.Join(dir, "dist"),
	}
	tests := []struct {
		name   string
		change func(*options)
		want   string
	}{
		{"version with a space", func(o *options) { o.Version = "1.0 beta" }, "-version"},
		{"version with a revision", func(o *options) { o.Version = "1.0-1" }, "-version"},
		{"version starting with v", func(o *options) { o.Version = "v1.0.0" }, "-version"},
		{"architecture", func(o *options) { o.Arch = "x86_64!" }, "-arch"},
		{"date", func(o *options) { o.Date = "yesterday" }, "-date"},
		{"missing binary", func(o *options) { o.Binary = filepath.Join(dir, "none") }, "-binary"},
		{"binary is a folder", func(o *options) { o.Binary = dir }, "-binary"},
		{"icon too small", func(o *options) { o.Icon = filepath.Join(repoRoot, "frontend/public/appicon-128.png") }, "at least 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.change(&o)
			_, err := build(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("build: %v, want an error about %s", err, tt.want)
			}
			if _, err := os.Stat(o.OutDir); err == nil {
				entries, _ := os.ReadDir(o.OutDir)
				if len(entries) > 0 {
					t.Errorf("a rejected build left %d files in the output folder", len(entries))
				}
			}
		})
	}
}

// TestScaleIcon: area averaging keeps a flat colour, averages a
// checkerboard to its mean, and does not darken a transparent border.
func TestScaleIcon(t *testing.T) {
	flat := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	checker := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	border := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			flat.SetNRGBA(x, y, color.NRGBA{R: 200, G: 100, B: 50, A: 255})
			if (x+y)%2 == 0 {
				checker.SetNRGBA(x, y, color.NRGBA{R: 255, G: 255, B: 255, A: 255})
			} else {
				checker.SetNRGBA(x, y, color.NRGBA{A: 255})
			}
			if x >= 32 {
				border.SetNRGBA(x, y, color.NRGBA{R: 255, A: 255}) // right half red, left half transparent
			}
		}
	}
	tests := []struct {
		name string
		src  image.Image
		size int
		x, y int
		want color.NRGBA
	}{
		{"flat to 16", flat, 16, 7, 7, color.NRGBA{R: 200, G: 100, B: 50, A: 255}},
		{"flat to 48 (not a divisor)", flat, 48, 47, 0, color.NRGBA{R: 200, G: 100, B: 50, A: 255}},
		{"checkerboard to 32", checker, 32, 3, 9, color.NRGBA{R: 128, G: 128, B: 128, A: 255}},
		{"edge of a transparent border", border, 1, 0, 0, color.NRGBA{R: 255, A: 128}},
		{"same size", flat, 64, 63, 63, color.NRGBA{R: 200, G: 100, B: 50, A: 255}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scaleIcon(tt.src, tt.size)
			if b := got.Bounds(); b.Dx() != tt.size || b.Dy() != tt.size {
				t.Fatalf("size %v, want %d", b, tt.size)
			}
			if c := got.NRGBAAt(tt.x, tt.y); c != tt.want {
				t.Errorf("pixel (%d,%d) = %v, want %v", tt.x, tt.y, c, tt.want)
			}
		})
	}
}

// TestDebianArch maps Go's architecture names onto Debian's.
func TestDebianArch(t *testing.T) {
	for goarch, want := range map[string]string{"amd64": "amd64", "arm64": "arm64", "386": "i386", "arm": "armhf", "ppc64le": "ppc64el", "riscv64": "riscv64"} {
		if got := debianArch(goarch); got != want {
			t.Errorf("debianArch(%s) = %s, want %s", goarch, got, want)
		}
	}
}
