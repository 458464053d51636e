package spacetools

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

// TestPaneEnumsMatchState keeps every pane enum tag equal to state.Panes.
func TestPaneEnumsMatchState(t *testing.T) {
	want := strings.Join(state.Panes, ",")
	for _, f := range []struct {
		typ   reflect.Type
		field string
	}{
		{reflect.TypeFor[OpenTabInput](), "Pane"},
		{reflect.TypeFor[LayoutInput](), "FocusedPane"},
		{reflect.TypeFor[MoveTabInput](), "Pane"},
	} {
		sf, _ := f.typ.FieldByName(f.field)
		if got := sf.Tag.Get("enum"); got != want {
			t.Errorf("%s.%s enum = %q, want %q", f.typ.Name(), f.field, got, want)
		}
	}
}
