// Package archrules holds no code: its test checks the dependency rules of
// the repository (docs/ARCHITECTURE.md, "Dependency rules") on the real
// import graph, so that a change which breaks a layer fails the build, and
// that the package table of docs/ARCHITECTURE.md names every package.
package archrules
