//go:build (desktop || dev || production || bindings) && !linux

package app

// webkitVersion is empty off Linux: the window does not run on WebKitGTK
// there (app_about then reports no WebKitGTK).
func webkitVersion() string { return "" }
