package redact

import (
	"reflect"
	"strings"
	"testing"
)

const (
	ghp     = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	testJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	sk      = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDc"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// URL userinfo and query parameters.
		{"url userinfo", "https://user:hunter2@example.com/x", "https://[REDACTED]@example.com/x"},
		{"url userinfo with a port", "git clone https://u:hunter2@example.com:8443/r.git", "git clone https://[REDACTED]@example.com:8443/r.git"},
		{"url userinfo with @ in the password", "https://u:p@ss@host/", "https://[REDACTED]@host/"},
		{"database url in a variable", "DATABASE_URL=postgres://app:hunter2@db:5432/app", "DATABASE_URL=postgres://[REDACTED]@db:5432/app"},
		{"access_token parameter", "https://h/cb?access_token=abc123&page=2", "https://h/cb?access_token=[REDACTED]&page=2"},
		{"secret parameters", "https://h/?token=a&key=b&secret=c&password=d&sig=e&X-Amz-Signature=f&X-Amz-Credential=g&client_secret=h&q=1",
			"https://h/?token=[REDACTED]&key=[REDACTED]&secret=[REDACTED]&password=[REDACTED]&sig=[REDACTED]&X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]&client_secret=[REDACTED]&q=1"},
		{"fragment token", "https://h/#access_token=abc&state=1", "https://h/#access_token=[REDACTED]&state=1"},
		{"url in a sentence", "open https://u:hunter2@h/?api_key=zzz now", "open https://[REDACTED]@h/?api_key=[REDACTED] now"},

		// argv pairs inside one command string.
		{"--password value", "mysql --password hunter2 -h db", "mysql --password [REDACTED] -h db"},
		{"-token value", "tool -token hunter2", "tool -token [REDACTED]"},
		{"--api-key quoted value", `cli --api-key "hunter 2" --verbose`, `cli --api-key "[REDACTED]" --verbose`},
		{"--password=value", "cli --password=hunter2 --port=3000", "cli --password=[REDACTED] --port=3000"},
		{"flag at the end", "cli --password", "cli --password"},

		// KEY=value with secret-looking keys.
		{"env assignments", "GITHUB_TOKEN=" + ghp + " DB_PASSWORD=hunter2 npm run dev", "GITHUB_TOKEN=[REDACTED] DB_PASSWORD=[REDACTED] npm run dev"},
		{"aws secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls"},
		{"key suffix", "SIGNING_KEY=abc STRIPE_KEY=def", "SIGNING_KEY=[REDACTED] STRIPE_KEY=[REDACTED]"},
		{"pass suffix", "SMTP_PASS=abc SMTP_PWD=def", "SMTP_PASS=[REDACTED] SMTP_PWD=[REDACTED]"},
		{"quoted value", `export DB_PASSWORD='hunter 2'; run`, `export DB_PASSWORD='[REDACTED]'; run`},
		{"double-quoted value", `API_KEY="a b c" x`, `API_KEY="[REDACTED]" x`},
		{"lower-case name", "password=hunter2", "password=[REDACTED]"},
		{"empty value", "TOKEN= next", "TOKEN= next"},

		// Known token prefixes anywhere.
		{"github token in prose", "my token is " + ghp, "my token is [REDACTED]"},
		{"github tokens", "gho_16C7e42F292c6912E7710c838347Ae178B4a ghs_16C7e42F292c6912E7710c838347Ae178B4a", "[REDACTED] [REDACTED]"},
		{"fine-grained github token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"openai key", "key " + sk + ".", "key [REDACTED]."},
		{"slack token", "xoxb-123456789012-abcdefABCDEF", "[REDACTED]"},
		{"aws key id", "id AKIAIOSFODNN7EXAMPLE here", "id [REDACTED] here"},
		{"gitlab token", "glpat-abcdefghijklmnopqrst", "[REDACTED]"},
		{"google api key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "[REDACTED]"},
		{"stripe key", "sk_live_abcdefghijklmnop1234", "[REDACTED]"},
		{"jwt", "session " + testJWT, "session [REDACTED]"},
		{"bearer", "Authorization header Bearer abcdefghijklmnop1234", "Authorization header Bearer [REDACTED]"},
		{"token after a path separator", "/tmp/" + ghp + "/x", "/tmp/[REDACTED]/x"},
		{"token as url user", "https://" + ghp + "@github.com/o/r", "https://[REDACTED]@github.com/o/r"},

		// name: value.
		{"json in a string", `curl -d '{"user":"me","password":"hunter2"}'`, `curl -d '{"user":"me","password":"[REDACTED]"}'`},
		{"escaped json in a string", `{\"password\":\"hunter2\"}`, `{\"password\":\"[REDACTED]\"}`},
		{"authorization header keeps the scheme", "curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' h", "curl -H 'Authorization: Basic [REDACTED]' h"},
		{"api key header", "X-Api-Key: hunter2", "X-Api-Key: [REDACTED]"},
		{"cookie header to the end of the line", "Cookie: sid=abc; theme=dark\nnext", "Cookie: [REDACTED]\nnext"},
		{"yaml", "password: hunter2\nuser: me", "password: [REDACTED]\nuser: me"},

		// What stays.
		{"port assignment", "PORT=3000 NODE_ENV=production npm run dev", "PORT=3000 NODE_ENV=production npm run dev"},
		{"plain url", "https://example.com/path?page=2&sort=asc#top", "https://example.com/path?page=2&sort=asc#top"},
		{"url with a user only", "ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"},
		{"url with a port only", "http://localhost:5173/", "http://localhost:5173/"},
		{"port flag", "vite --port 3000 --host", "vite --port 3000 --host"},
		{"git sha", "HEAD is 1098695c4f0e1b2a3d4c5b6a79887766554433aa", "HEAD is 1098695c4f0e1b2a3d4c5b6a79887766554433aa"},
		{"path", "/home/user/project/src/main.go", "/home/user/project/src/main.go"},
		{"path with a secret-looking name", "open /home/u/.config/secret: permission denied", "open /home/u/.config/secret: permission denied"},
		{"pwd", "PWD=/home/user", "PWD=/home/user"},
		{"words with prefixes inside", "task-runner disk-image sk-short ghp_short AKIA12", "task-runner disk-image sk-short ghp_short AKIA12"},
		{"a version", "meith 0.1.0-dev (go1.26)", "meith 0.1.0-dev (go1.26)"},
		{"a time", "at 12:30:05 on socket:2b7d0c4e", "at 12:30:05 on socket:2b7d0c4e"},
		{"validation message", `argument "confirm" must be a boolean, got a string`, `argument "confirm" must be a boolean, got a string`},
		{"empty", "", ""},
		{"marker stays", "password=[REDACTED] --token [REDACTED]", "password=[REDACTED] --token [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := String(got); again != got {
				t.Errorf("String(String(%q)) = %q, want %q (redacting twice changes the text)", tt.in, again, got)
			}
			b, changed := Append([]byte("x"), []byte(tt.in))
			if changed != (got != tt.in) || (changed && string(b) != "x"+got) || (!changed && string(b) != "x") {
				t.Errorf("Append(%q) = %q, %v; want %q, %v", tt.in, b, changed, "x"+got, got != tt.in)
			}
		})
	}
}

func TestStringDoesNotAllocateWithoutSecrets(t *testing.T) {
	for _, s := range []string{"tool socket listening", "PORT=3000 vite --port 3000", "https://example.com/a?page=2", "socket:2b7d0c4e-54a3"} {
		if n := testing.AllocsPerRun(100, func() { String(s) }); n != 0 {
			t.Errorf("String(%q) allocates %v times", s, n)
		}
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"--password", "hunter2", "--port", "3000"}, []string{"--password", "[REDACTED]", "--port", "3000"}},
		{[]string{"-token", "hunter 2"}, []string{"-token", "[REDACTED]"}},
		{[]string{"--api-key", "x", "--token=abc"}, []string{"--api-key", "[REDACTED]", "--token=[REDACTED]"}},
		{[]string{"run", "https://u:hunter2@h/"}, []string{"run", "https://[REDACTED]@h/"}},
		{[]string{"--port", "3000"}, []string{"--port", "3000"}},
		{[]string{"--password"}, []string{"--password"}},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := Args(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Args(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	in := []string{"--password", "hunter2"}
	Args(in)
	if in[1] != "hunter2" {
		t.Errorf("Args changed its argument: %q", in)
	}
}

func TestValue(t *testing.T) {
	in := map[string]any{
		"cmd":    "TOKEN=abc npm start",
		"apiKey": map[string]any{"a": 1},
		"args":   []any{"--password", "hunter2", 3, "--port", "80"},
		"argv":   []string{"--secret", "s"},
		"n":      1.5,
		"nested": map[string]any{"url": "https://u:p@h/"},
	}
	want := map[string]any{
		"cmd":    "TOKEN=[REDACTED] npm start",
		"apiKey": Marker,
		"args":   []any{"--password", Marker, 3, "--port", "80"},
		"argv":   []string{"--secret", Marker},
		"n":      1.5,
		"nested": map[string]any{"url": "https://[REDACTED]@h/"},
	}
	if got := Value(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Value(%v)\n got %v\nwant %v", in, got, want)
	}
	if in["cmd"] != "TOKEN=abc npm start" {
		t.Errorf("Value changed its argument")
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "GITHUB_TOKEN": true, "access_token": true, "DB_PASSWORD": true, "key": true, "KEY": true,
		"sig": true, "X-Amz-Signature": true, "auth": true, "NPM_AUTH": true, "pass": true, "SMTP_PWD": true, "jwt": true, "Set-Cookie": true,
		"PORT": false, "page": false, "PWD": false, "monkey": false, "keys": false, "host": false, "NODE_ENV": false, "": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLongInput(t *testing.T) {
	s := strings.Repeat("a=b c:d -e ", 100_000) + "TOKEN=x"
	if got := String(s); !strings.HasSuffix(got, "TOKEN=[REDACTED]") || len(got) != len(s)-1+len(Marker) {
		t.Errorf("String of a long input ends with %q", got[len(got)-30:])
	}
}

func BenchmarkString(b *testing.B) {
	for _, in := range []struct{ name, s string }{
		{"short_plain", "tool socket listening"},
		{"id", "socket:2b7d0c4e-54a3-4f7e-9d51-0c1f7b2a9e11"},
		{"url", "https://example.com/api/v1/items?page=2"},
		{"message", `tool call failed: VALIDATION_ERROR: Invalid arguments for "git_restore": argument "confirm" must be a boolean, got a string`},
		{"command_with_secrets", "GITHUB_TOKEN=" + ghp + " DB_PASSWORD=hunter2 npm run dev -- --port 3000"},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				String(in.s)
			}
		})
	}
}

// FuzzString checks that the scanner never panics, that Append agrees with
// String, and that redacting twice changes nothing more:
// go test -fuzz FuzzString ./backend/redact.
func FuzzString(f *testing.F) {
	for _, s := range []string{"GITHUB_TOKEN=" + ghp + " x", "https://u:p@h/?token=a&b=c", "--password 'a b'", `{\"password\":\"x\"}`,
		"Authorization: Basic abc", "Cookie: a=b", testJWT, "Bearer abcdefghijklmnop", "x:", "=", "-", "e", "https://", "a:\\\"", "token=\\'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		b, changed := Append(nil, []byte(s))
		if changed != (got != s) || (changed && string(b) != got) {
			t.Fatalf("Append(%q) = %q, %v; String = %q", s, b, changed, got)
		}
		if again := String(got); again != got {
			t.Fatalf("String(String(%q)) = %q, want %q", s, again, got)
		}
	})
}
