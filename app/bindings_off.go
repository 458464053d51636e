//go:build !bindings

package app

// bindingsOnly is true in the binary `wails build` generates wailsjs/ with.
const bindingsOnly = false
