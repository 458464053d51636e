package spaces

import (
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/state"
)

// TestKindEnumMatchesState: the tag must be a literal, so it repeats
// state.WorkspaceTabKinds; this keeps them equal.
func TestKindEnumMatchesState(t *testing.T) {
	f, _ := reflect.TypeFor[OpenTabInput]().FieldByName("Kind")
	if got, want := f.Tag.Get("enum"), strings.Join(state.WorkspaceTabKinds, ","); got != want {
		t.Errorf("OpenTabInput.Kind enum = %q, want %q", got, want)
	}
}
