//go:build !(desktop || production || dev)

// Command emptywails needs the Wails build tags (desktop,production,
// webkit2_41); see bench/desktop.sh.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "emptywails: build with -tags desktop,production,webkit2_41 (see bench/desktop.sh)")
	os.Exit(2)
}
