package instance

import (
	"testing"

	"github.com/meith-dev/meith/backend/state"
)

func TestTerminalLabel(t *testing.T) {
	term1, term2 := "term_1", "term_2"
	st := state.State{
		Spaces: []state.Space{{ID: "sp_1", Name: "todo-api"}},
		WorkspaceTabs: []state.WorkspaceTab{
			{ID: "wt_1", SpaceID: "sp_1", Kind: state.KindTerminal, Title: "Terminal", TerminalID: &term1},
			{ID: "wt_2", SpaceID: "sp_gone", Kind: state.KindTerminal, Title: "zsh", TerminalID: &term2},
		},
	}
	for _, tt := range []struct{ id, want string }{{term1, "todo-api"}, {term2, "zsh"}, {"term_3", ""}} {
		if got := terminalLabel(st, tt.id); got != tt.want {
			t.Errorf("terminalLabel(%s) = %q, want %q", tt.id, got, tt.want)
		}
	}
}
