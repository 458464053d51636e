package settingstools

import (
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/state"
)

// TestPackageManagerEnumMatchesState: the tag must be a literal, so it
// repeats state.PackageManagers; this keeps them equal.
func TestPackageManagerEnumMatchesState(t *testing.T) {
	f, _ := reflect.TypeFor[Patch]().FieldByName("DefaultPackageManager")
	if got, want := f.Tag.Get("enum"), strings.Join(state.PackageManagers, ","); got != want {
		t.Errorf("Patch.DefaultPackageManager enum = %q, want %q", got, want)
	}
}

// TestDevServerOpenBrowserEnumMatchesState keeps the tag equal to
// state.DevServerOpenBrowserModes.
func TestDevServerOpenBrowserEnumMatchesState(t *testing.T) {
	f, _ := reflect.TypeFor[Patch]().FieldByName("DevServerOpenBrowser")
	if got, want := f.Tag.Get("enum"), strings.Join(state.DevServerOpenBrowserModes, ","); got != want {
		t.Errorf("Patch.DevServerOpenBrowser enum = %q, want %q", got, want)
	}
}
