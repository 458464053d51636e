//go:build desktop || production || dev

// Command emptywails is the anchor of the desktop benchmark
// (bench/desktop.sh): the smallest Wails v2 app, built with the same tags
// and flags as meith, showing one static page in a 1280×820 window. meith's
// start-up time, memory and binary size are reported next to it.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

//go:embed index.html
var assets embed.FS

func main() {
	err := wails.Run(&options.App{
		Title:       "emptywails",
		Width:       1280,
		Height:      820,
		AssetServer: &assetserver.Options{Assets: assets},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "emptywails:", err)
		os.Exit(1)
	}
}
