package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// unpack writes testdata/<name>.txtar into a folder named <name> under a
// temporary folder and returns it.
func unpack(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func port(n int) *int { return &n }

func dev(id, label, command string) RunCommand {
	return RunCommand{ID: id, Label: label, Command: command, IsDevServer: true}
}

func task(id, label, command string) RunCommand {
	return RunCommand{ID: id, Label: label, Command: command}
}

// normalize gives a want's nil slices the empty values detection returns.
func normalize(s SetupDetection) SetupDetection {
	if s.Stacks == nil {
		s.Stacks = []string{}
	}
	if s.Scripts == nil {
		s.Scripts = []Script{}
	}
	if s.Commands == nil {
		s.Commands = []RunCommand{}
	}
	if s.Workspaces == nil {
		s.Workspaces = []Workspace{}
	}
	if s.EnvFiles == nil {
		s.EnvFiles = []string{}
	}
	if s.SetupNotes == nil {
		s.SetupNotes = []string{}
	}
	return s
}

func asJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// problemNote tells the notes that say a project file could not be used
// (which SetupDetection.Problems repeats) from advice such as "Run npm
// install".
var problemNote = regexp.MustCompile(`^package\.json (is|could)|was not read$|could not be read \(`)

func checkDetection(t *testing.T, what string, got SetupDetection, want SetupDetection) {
	t.Helper()
	want = normalize(want)
	if want.Problems == nil {
		for _, n := range want.SetupNotes {
			if problemNote.MatchString(n) {
				want.Problems = append(want.Problems, n)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SetupDetect(%s) = %s\nwant %s", what, asJSON(got), asJSON(want))
	}
}

func TestSetupDetectFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		want    SetupDetection
	}{
		{"vite-pnpm", SetupDetection{
			Detection: Detection{
				Name: "web", Stacks: []string{"node"}, Framework: "vite", Label: "Vite + pnpm",
				PackageManager: "pnpm", Lockfile: true, HasPackageJSON: true,
				Scripts: []Script{
					{"dev", "vite --port 3001"}, {"build", "vite build"}, {"preview", "vite preview"},
					{"start", "vite preview --port 4173"},
				},
				Commands:   []RunCommand{dev("script-dev", "dev", "pnpm dev"), dev("script-start", "start", "pnpm start")},
				LikelyPort: port(3001),
			},
			EnvFiles:   []string{".env.example"},
			SetupNotes: []string{"Copy .env.example to .env"},
		}},
		{"next-npm", SetupDetection{
			Detection: Detection{
				Name: "shop", Stacks: []string{"node"}, Framework: "nextjs", Label: "Next.js + npm",
				PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "next dev"}, {"build", "next build"}, {"start", "next start"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "npm run dev"), dev("script-start", "start", "npm run start")},
				LikelyPort: port(3000),
			},
			EnvFiles:   []string{".env", ".env.local"},
			SetupNotes: []string{"Run npm install: node_modules is missing"},
		}},
		{"sveltekit-yarn", SetupDetection{Detection: Detection{
			Name: "kit", Stacks: []string{"node"}, Framework: "sveltekit", Label: "SvelteKit + yarn",
			PackageManager: "yarn", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"dev", "vite dev"}},
			Commands:   []RunCommand{dev("script-dev", "dev", "yarn dev")},
			LikelyPort: port(5173),
		}}},
		{"svelte-bun", SetupDetection{Detection: Detection{
			Name: "widget", Stacks: []string{"node"}, Framework: "svelte", Label: "Svelte + bun",
			PackageManager: "bun", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"serve", "vite"}},
			Commands:   []RunCommand{dev("script-serve", "serve", "bun run serve")},
			LikelyPort: port(5173),
		}}},
		{"astro-nolock", SetupDetection{
			Detection: Detection{
				Name: "blog", Stacks: []string{"node"}, Framework: "astro", Label: "Astro + npm",
				PackageManager: "npm", Lockfile: false, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "astro dev"}, {"start", "astro dev"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "npm run dev"), dev("script-start", "start", "npm run start")},
				LikelyPort: port(4321),
			},
			SetupNotes: []string{"Run npm install: node_modules is missing"},
		}},
		{"remix-classic", SetupDetection{Detection: Detection{
			Name: "remix-app", Stacks: []string{"node"}, Framework: "remix", Label: "Remix + npm",
			PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"dev", "remix dev"}, {"start", "remix-serve ./build/index.js"}},
			Commands:   []RunCommand{dev("script-dev", "dev", "npm run dev"), dev("script-start", "start", "npm run start")},
			LikelyPort: port(3000),
		}}},
		{"nuxt", SetupDetection{Detection: Detection{
			Name: "nuxt-app", Stacks: []string{"node"}, Framework: "nuxt", Label: "Nuxt + pnpm",
			PackageManager: "pnpm", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"dev", "nuxt dev"}},
			Commands:   []RunCommand{dev("script-dev", "dev", "pnpm dev")},
			LikelyPort: port(3000),
		}}},
		{"angular", SetupDetection{Detection: Detection{
			Name: "ng-app", Stacks: []string{"node"}, Framework: "angular", Label: "Angular + npm",
			PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"ng", "ng"}, {"start", "ng serve"}},
			Commands:   []RunCommand{dev("script-start", "start", "npm run start")},
			LikelyPort: port(4200),
		}}},
		{"vue-cli", SetupDetection{Detection: Detection{
			Name: "vue-app", Stacks: []string{"node"}, Framework: "vue", Label: "Vue + yarn",
			PackageManager: "yarn", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"serve", "vue-cli-service serve"}, {"build", "vue-cli-service build"}},
			Commands:   []RunCommand{dev("script-serve", "serve", "yarn serve")},
			LikelyPort: port(8080),
		}}},
		{"react-cra", SetupDetection{Detection: Detection{
			Name: "cra", Stacks: []string{"node"}, Framework: "react", Label: "React + npm",
			PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"start", "PORT=4000 react-scripts start"}},
			Commands:   []RunCommand{dev("script-start", "start", "npm run start")},
			LikelyPort: port(4000),
		}}},
		{"express", SetupDetection{Detection: Detection{
			Name: "api", Stacks: []string{"node"}, Framework: "express", Label: "Express + npm",
			PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
			Scripts:    []Script{{"start", "node server.js"}, {"dev", "node --watch server.js -p 8081"}},
			Commands:   []RunCommand{dev("script-dev", "dev", "npm run dev"), dev("script-start", "start", "npm run start")},
			LikelyPort: port(8081),
		}}},
		{"node-plain", SetupDetection{Detection: Detection{
			Name: "@acme/tool", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + npm",
			PackageManager: "npm", HasPackageJSON: true,
			Scripts:    []Script{{"test", "node --test"}},
			LikelyPort: port(3000),
		}}},
		{"pnpm-monorepo", SetupDetection{
			Detection: Detection{
				Name: "mono", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + pnpm",
				PackageManager: "pnpm", Lockfile: true, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "turbo dev"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "pnpm dev")},
				LikelyPort: port(3000),
				Workspaces: []Workspace{
					{"@mono/docs", "apps/docs", "nextjs"}, {"@mono/web", "apps/web", "vite"},
					{"broken", "packages/broken", "node"}, {"ui", "packages/ui", "react"},
				},
			},
			IsMonorepo: true,
		}},
		{"npm-workspaces", SetupDetection{
			Detection: Detection{
				Name: "ws", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + npm",
				PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
				LikelyPort: port(3000),
				Workspaces: []Workspace{{"a", "packages/a", "express"}, {"b", "packages/b", "node"}, {"cli", "tools/cli", "node"}},
			},
			IsMonorepo: true,
		}},
		{"yarn-workspaces", SetupDetection{
			Detection: Detection{
				Name: "yw", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + yarn",
				PackageManager: "yarn", Lockfile: true, HasPackageJSON: true,
				LikelyPort: port(3000),
				Workspaces: []Workspace{{"one", "libs/one", "vite"}},
			},
			IsMonorepo: true,
		}},
		{"go-cmd", SetupDetection{Detection: Detection{
			Name: "tool", Stacks: []string{"go"}, Framework: "go", Label: "Go",
			Commands: []RunCommand{
				task("go-run-cli", "cmd/cli", "go run ./cmd/cli"),
				dev("go-run-server", "cmd/server", "go run ./cmd/server"),
				dev("go-run-worker", "cmd/worker", "go run ./cmd/worker"),
			},
		}}},
		{"go-root", SetupDetection{
			Detection: Detection{
				Name: "hello", Stacks: []string{"go"}, Framework: "go", Label: "Go",
				Commands: []RunCommand{dev("go-run", "go run .", "go run .")},
			},
			SetupNotes: []string{"go.sum is missing: run go mod tidy"},
		}},
		{"django", SetupDetection{
			Detection: Detection{
				Name: "assets", Stacks: []string{"node", "python"}, Framework: "django", Label: "Django",
				PackageManager: "npm", Lockfile: true, HasPackageJSON: true,
				Scripts: []Script{{"dev", "tailwindcss -w"}},
				Commands: []RunCommand{
					dev("django-runserver", "runserver", "python manage.py runserver"),
					dev("script-dev", "dev", "npm run dev"),
				},
				LikelyPort: port(8000),
			},
			SetupNotes: []string{"No virtual environment: run python3 -m venv .venv && .venv/bin/pip install -r requirements.txt"},
		}},
		{"flask", SetupDetection{Detection: Detection{
			Name: "hello-flask", Stacks: []string{"python"}, Framework: "flask", Label: "Flask",
			Commands:   []RunCommand{dev("flask-run", "flask run", "flask run")},
			LikelyPort: port(5000),
		}}},
		{"fastapi", SetupDetection{Detection: Detection{
			Name: "fastapi", Stacks: []string{"python"}, Framework: "fastapi", Label: "FastAPI",
			Commands:   []RunCommand{dev("uvicorn", "uvicorn", "uvicorn app.main:api --reload")},
			LikelyPort: port(8000),
		}}},
		{"python-poetry", SetupDetection{Detection: Detection{
			Name: "lib", Stacks: []string{"python"}, Framework: "python", Label: "Python",
		}}},
		{"rust", SetupDetection{Detection: Detection{
			Name: "svc", Stacks: []string{"rust"}, Framework: "rust", Label: "Rust (cargo)",
			Commands: []RunCommand{dev("cargo-run", "cargo run", "cargo run")},
		}}},
		{"rails", SetupDetection{Detection: Detection{
			Name: "app", Stacks: []string{"node", "ruby", "procfile"}, Framework: "rails", Label: "Rails",
			PackageManager: "yarn", Lockfile: true, HasPackageJSON: true,
			Scripts: []Script{{"build", "esbuild app/javascript/*.*"}},
			Commands: []RunCommand{
				dev("rails-server", "rails server", "bin/rails server"),
				dev("procfile-web", "web", "bin/rails server -p 3000"),
			},
			LikelyPort: port(3000),
		}}},
		{"ruby-plain", SetupDetection{
			Detection:  Detection{Name: "ruby-plain", Stacks: []string{"ruby"}, Framework: "ruby", Label: "Ruby"},
			SetupNotes: []string{"Run bundle install: Gemfile.lock is missing"},
		}},
		{"makefile", SetupDetection{Detection: Detection{
			Name: "makefile", Stacks: []string{"make"}, Framework: "make", Label: "Makefile",
			Commands: []RunCommand{dev("make-dev", "make dev", "make dev"), task("make-run", "make run", "make run")},
		}}},
		{"justfile", SetupDetection{Detection: Detection{
			Name: "justfile", Stacks: []string{"just"}, Framework: "make", Label: "justfile",
			Commands: []RunCommand{dev("just-serve", "just serve", "just serve")},
		}}},
		{"procfile", SetupDetection{Detection: Detection{
			Name: "procfile", Stacks: []string{"procfile"}, Framework: "unknown", Label: "Procfile",
			Commands:   []RunCommand{dev("procfile-web", "web", "bundle exec puma -p 5100")},
			LikelyPort: port(5100),
		}}},
		{"compose", SetupDetection{Detection: Detection{
			Name: "compose", Stacks: []string{"compose"}, Framework: "compose", Label: "Docker Compose",
			Commands: []RunCommand{dev("compose-up", "compose up", "docker compose up")},
		}}},
		{"empty", SetupDetection{
			Detection:  Detection{Name: "empty", Framework: "unknown", Label: "Folder"},
			SetupNotes: []string{"No known project files found (package.json, go.mod, pyproject.toml, Cargo.toml, Gemfile, Makefile, Procfile, compose.yaml)"},
		}},
		{"invalid-package-json", SetupDetection{
			Detection: Detection{
				Name: "invalid-package-json", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + yarn",
				PackageManager: "yarn", Lockfile: true, HasPackageJSON: true, LikelyPort: port(3000),
			},
			SetupNotes: []string{"package.json is not valid JSON: line 5"},
		}},
		{"package-json-array", SetupDetection{
			Detection: Detection{
				Name: "package-json-array", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + npm",
				PackageManager: "npm", HasPackageJSON: true, LikelyPort: port(3000),
			},
			SetupNotes: []string{"package.json is not a JSON object"},
		}},
		{"multi-lock", SetupDetection{
			Detection: Detection{
				Name: "twolocks", Stacks: []string{"node"}, Framework: "node", Label: "Node.js + pnpm",
				PackageManager: "pnpm", Lockfile: true, HasPackageJSON: true,
				Scripts:    []Script{{"dev", "node index.js"}},
				Commands:   []RunCommand{dev("script-dev", "dev", "pnpm dev")},
				LikelyPort: port(3000),
			},
			SetupNotes: []string{"Several lockfiles (pnpm-lock.yaml, package-lock.json): pnpm is used"},
		}},
	}
	fixtures, _ := filepath.Glob("testdata/*.txtar")
	if len(fixtures) != len(tests) {
		t.Errorf("testdata has %d fixtures, the table %d: every fixture needs a row", len(fixtures), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := unpack(t, tt.fixture)
			got, err := SetupDetect(dir)
			if err != nil {
				t.Fatalf("SetupDetect(%s) error %v", tt.fixture, err)
			}
			checkDetection(t, tt.fixture, got, tt.want)
			d, err := Detect(dir)
			if err != nil || !reflect.DeepEqual(d, got.Detection) {
				t.Errorf("Detect(%s) = %s, %v; want SetupDetect's Detection %s", tt.fixture, asJSON(d), err, asJSON(got.Detection))
			}
		})
	}
}
