//go:build pins

// Package pins keeps the versions of modules that the design fixes (see
// ../../shared/reference/toolchain.md) in go.mod before the packages that use
// them land: chromedp for tools/browser (go-git is imported by backend/git
// now). It is built only with the "pins" tag and is removed once that
// package imports chromedp itself.
package pins

import (
	_ "github.com/chromedp/chromedp"
)
