package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// socketCLI runs `meith` commands against the runtime at socket in tests
// that drive mapped commands end to end.
type socketCLI struct {
	t      *testing.T
	socket string
}

// run runs one command and returns its stdout; a non-zero exit fails the
// test with both streams.
func (c socketCLI) run(args ...string) string {
	c.t.Helper()
	var out, errw bytes.Buffer
	code := Main(context.Background(), append([]string{"--socket", c.socket}, args...), &Streams{Out: &out, Err: &errw})
	if code != 0 {
		c.t.Fatalf("meith %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out.String(), errw.String())
	}
	return out.String()
}

// decode unmarshals what a command printed into v.
func (c socketCLI) decode(what, text string, v any) {
	c.t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		c.t.Fatalf("%s printed %q: %v", what, text, err)
	}
}
