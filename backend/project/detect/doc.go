// Package detect says what kind of project a folder holds and how it runs,
// by reading a few of its files. It is a leaf: it imports nothing of meith's.
//
// Detect returns a Detection: the project's name, the stacks found, the
// primary framework with a label for people ("Vite + pnpm"), the Node package
// manager and scripts, the detected run commands (best first), the likely
// port and the Node workspaces. SetupDetect adds the env files, whether the
// folder is a monorepo, and setup notes. DefaultRunConfig turns a Detection
// into the run configuration a project has until someone edits it.
//
// The rules:
//
//   - Node: package.json. The lockfile decides the package manager
//     (pnpm-lock.yaml → pnpm, yarn.lock → yarn, package-lock.json or
//     npm-shrinkwrap.json → npm, bun.lockb or bun.lock → bun; the first in
//     that order wins); no lockfile → "npm" with Lockfile false, and
//     DefaultRunConfig's defaultPM decides. The framework comes from
//     dependencies and devDependencies: next → nextjs, @sveltejs/kit →
//     sveltekit, astro, @remix-run/* → remix, nuxt, @angular/core → angular,
//     svelte, vite, vue, react, express, else node (the meta-frameworks before
//     vite, vite before the view libraries). The scripts dev, start and serve
//     become commands ("npm run dev", "pnpm dev", "yarn dev", "bun run dev").
//     Workspaces come from pnpm-workspace.yaml, else package.json's
//     "workspaces" (a list or {packages}); a glob in the last element is
//     expanded one level and only folders with a package.json count.
//   - Go: go.mod (the module's last element is the name). A root main.go in
//     package main → "go run ."; each cmd/<name>/main.go in package main →
//     "go run ./cmd/<name>", a dev server when the name is server, api, web,
//     serve or http or the file imports net/http or a common HTTP or gRPC
//     framework (at most 64 KiB of each main is read).
//   - Python: pyproject.toml, requirements*.txt, Pipfile or manage.py.
//     manage.py → django, "python manage.py runserver"; flask in the
//     dependencies → "flask run"; fastapi → "uvicorn <module>:<var> --reload"
//     when `<var> = FastAPI(` is in main.py, app.py, app/main.py or
//     src/main.py.
//   - Rust: Cargo.toml → "cargo run" (a dev server when it depends on a web
//     framework). Ruby: Gemfile; the rails gem → rails, and with bin/rails
//     "bin/rails server".
//   - Makefile and justfile targets dev, start, serve (dev servers) and run →
//     "make dev", "just dev"; Procfile's web process → its command;
//     compose.yaml, compose.yml, docker-compose.yaml or docker-compose.yml →
//     "docker compose up".
//   - The primary framework, which names the label and whose commands come
//     first: a Python web framework or Rails, else Node, else Go, Rust, plain
//     Python, plain Ruby, Makefile, justfile, compose, Procfile; nothing →
//     "unknown", labelled "Folder".
//   - The likely port: a --port N, -p N, PORT=N or runserver [host:]N in the
//     first dev-server command (for a Node script, in the script's text), else
//     the framework's default (vite and sveltekit 5173, nextjs, nuxt, react,
//     express and node 3000, astro 4321, angular 4200, remix 5173 with vite
//     else 3000, vue and svelte 5173 with vite else 8080, django and fastapi
//     8000, flask 5000, rails 3000), else none.
//
// Reading is bounded and confined. Every file is opened through an os.Root on
// the folder, so no link out of it is followed; every open is non-blocking
// and only regular files are read, so a FIFO or device never blocks or is
// read; a file over 1 MiB is not read (a Go main: 64 KiB), nor anything once
// 16 MiB were read in one detection; a folder listing stops at 2,000
// entries; at most 200 scripts (each cut at 1,000 characters) and 50
// workspaces are kept. Nothing is ever executed. Only a missing, non-folder
// or unreadable folder is an error (a *FolderError, see IsNotExist and
// IsNotFolder); anything wrong inside it (package.json not valid JSON, too
// large, a FIFO, a link out of the folder) becomes a setup note and the
// detection goes on without it.
package detect
