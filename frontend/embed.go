// Package frontend exposes the built web UI (frontend/dist, produced by
// `npm run build`) to the Go binary. The desktop app serves it through the
// Wails asset server.
//
// A fresh clone holds only dist/.keep, which is enough for the package (and so
// `go build`/`go vet`/`go test ./...`) to compile; the window is blank until
// the frontend has been built.
//
// The TypeScript types of the tools (src/lib/bridge/generated/tools.ts) are
// generated from the Go tool registry by backend/cmd/gentypes; run
// `go generate ./...` after changing a tool's input or output type
// (scripts/test.sh fails while the file is stale).
package frontend

//go:generate go run ../backend/cmd/gentypes -o src/lib/bridge/generated/tools.ts

import "embed"

// Assets is the built frontend. The all: prefix keeps files that start with
// "_" or "." (Vite can emit such chunks).
//
//go:embed all:dist
var Assets embed.FS
