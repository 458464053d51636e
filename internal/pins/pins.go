//go:build pins

// Package pins keeps the versions of modules that the design fixes (see
// ../../shared/reference/toolchain.md) in go.mod before the packages that use
// them land: chromedp for tools/browser and go-git for tools/gittools. It is
// built only with the "pins" tag and is removed once those packages import
// the modules themselves.
package pins

import (
	_ "github.com/chromedp/chromedp"
	_ "github.com/go-git/go-git/v5"
)
