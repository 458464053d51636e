// Command mkdeb builds meith's Debian package with nfpm (as a library):
// the desktop binary at /usr/bin/meith, the menu entry, the icon in the
// hicolor theme at every usual size (scaled from one PNG here), the
// meith(1) man page and the bash, zsh and fish completions (generated from
// the CLI's command table), with Depends on the WebKitGTK 4.1 and GTK 3
// runtime libraries and Recommends chromium and git.
//
//	go run ./backend/cmd/mkdeb -binary build/bin/meith -version 0.1.0+418.g7f94b50 -out build/dist
//
// scripts/package.sh builds the binary and runs this; it prints the path of
// the package it wrote. Nothing here imports Wails: the binary is an input.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var o options
	flag.StringVar(&o.Binary, "binary", "build/bin/meith", "the production desktop binary")
	flag.StringVar(&o.Version, "version", "", "the package version (scripts/version.sh); required")
	flag.StringVar(&o.Arch, "arch", debianArch(runtime.GOARCH), "the Debian architecture")
	flag.StringVar(&o.Icon, "icon", "frontend/public/appicon.png", "the app icon, a square PNG of at least 256 pixels")
	flag.StringVar(&o.Desktop, "desktop", "build/linux/meith.desktop", "the menu entry")
	flag.StringVar(&o.Date, "date", time.Now().UTC().Format("2006-01-02"), "the man page's date (YYYY-MM-DD)")
	flag.StringVar(&o.OutDir, "out", "build/dist", "the folder the package is written to")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mkdeb: no arguments expected, got %d; see -help\n", flag.NArg())
		os.Exit(2)
	}
	path, err := build(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mkdeb: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

// debianArch maps a GOARCH onto Debian's architecture name.
func debianArch(goarch string) string {
	switch goarch {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	case "ppc64le":
		return "ppc64el"
	}
	return goarch
}
