package apptools

import (
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// TestLogsInputEnumsMatchProtocol: struct tags must be literals, so the
// enums of app_get_logs repeat the protocol's lists; this keeps them equal.
func TestLogsInputEnumsMatchProtocol(t *testing.T) {
	typ := reflect.TypeFor[LogsInput]()
	callers := make([]string, len(protocol.Callers))
	for i, c := range protocol.Callers {
		callers[i] = string(c)
	}
	levels := []string{string(protocol.LevelDebug), string(protocol.LevelInfo), string(protocol.LevelWarn), string(protocol.LevelError)}
	for field, want := range map[string][]string{"Caller": callers, "Level": levels} {
		f, _ := typ.FieldByName(field)
		if got := f.Tag.Get("enum"); got != strings.Join(want, ",") {
			t.Errorf("LogsInput.%s enum = %q, want %q", field, got, strings.Join(want, ","))
		}
	}
}
