package detect

import (
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// goResult is what go.mod and the main packages say.
type goResult struct {
	name     string
	requires bool
	commands []RunCommand
}

// goServerImports are imports that make a main a server.
var goServerImports = []string{
	"net/http", "github.com/gin-gonic/gin", "github.com/labstack/echo", "github.com/gofiber/fiber",
	"github.com/go-chi/chi", "github.com/gorilla/mux", "google.golang.org/grpc",
}

// goServerNames are cmd/<name> folders that are servers by their name.
var goServerNames = map[string]bool{"server": true, "api": true, "web": true, "serve": true, "http": true}

func detectGo(d *detector) *goResult {
	data, st := d.f.read("go.mod", maxFileBytes)
	if st != readOK {
		d.reportUnread("go.mod", st)
		return nil
	}
	g := &goResult{commands: []RunCommand{}}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if mod, ok := strings.CutPrefix(line, "module"); ok && g.name == "" && (mod == "" || mod[0] == ' ' || mod[0] == '\t') {
			mod = strings.TrimSpace(mod)
			if uq, err := strconv.Unquote(mod); err == nil {
				mod = uq
			}
			g.name = path.Base(mod)
			if g.name == "." || g.name == "/" {
				g.name = ""
			}
		}
		if strings.HasPrefix(line, "require ") || line == "require (" || strings.HasPrefix(line, "require(") {
			g.requires = true
		}
	}
	if isMain, server := goMain(d, "main.go"); isMain {
		g.commands = append(g.commands, RunCommand{ID: "go-run", Label: "go run .", Command: "go run .", IsDevServer: server})
	}
	entries, _ := d.f.list("cmd")
	looked := 0
	for _, e := range entries {
		if !e.isDir || looked >= maxGoMains {
			continue
		}
		looked++
		isMain, server := goMain(d, "cmd/"+e.name+"/main.go")
		if !isMain {
			continue
		}
		id := "go-run-" + slug(e.name)
		if id == "go-run-" {
			continue
		}
		g.commands = append(g.commands, RunCommand{
			ID: id, Label: "cmd/" + e.name, Command: "go run ./cmd/" + e.name,
			IsDevServer: server || goServerNames[strings.ToLower(e.name)],
		})
	}
	return g
}

// goMain reads at most 64 KiB of a Go file and reports whether it is in
// package main and whether it imports an HTTP or RPC server package.
func goMain(d *detector, name string) (isMain, server bool) {
	data, st := d.f.read(name, maxMainBytes)
	if st != readOK {
		return false, false
	}
	file, err := parser.ParseFile(token.NewFileSet(), name, data, parser.ImportsOnly)
	if err != nil || file.Name == nil || file.Name.Name != "main" {
		return false, false
	}
	for _, imp := range file.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		for _, s := range goServerImports {
			if p == s || strings.HasPrefix(p, s+"/") {
				return true, true
			}
		}
	}
	return true, false
}
