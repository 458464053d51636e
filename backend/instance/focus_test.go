package instance_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/tools/apptools"
)

func TestFocusWindow(t *testing.T) {
	focused := 0
	cases := []struct {
		name string
		hook func(ctx context.Context) error
		want apptools.FocusResult
	}{
		{"headless", nil, apptools.FocusResult{Reason: "headless"}},
		{"a window", func(context.Context) error { focused++; return nil }, apptools.FocusResult{Focused: true}},
		{"a window not open yet", func(context.Context) error { return errors.New("the window is not open yet") },
			apptools.FocusResult{Reason: "the window is not open yet"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inst := newInstance(t, instance.Config{FocusWindow: tc.hook})
			res := callDirect(t, inst, "app_focus_window", nil)
			var got apptools.FocusResult
			if !res.OK || json.Unmarshal(res.Content, &got) != nil || got != tc.want {
				t.Errorf("app_focus_window = %+v %s, want %+v", res.Error, res.Content, tc.want)
			}
		})
	}
	if focused != 1 {
		t.Errorf("the window hook ran %d times, want 1", focused)
	}
	// Over the socket too, as the CLI calls it: read-only, no grant needed.
	inst := instancetest.New(t)
	if res := call(t, dial(t, inst), "app_focus_window", `{}`, nil); !res.OK || string(res.Content) != `{"focused":false,"reason":"headless"}` {
		t.Errorf("app_focus_window over the socket = %+v %s", res.Error, res.Content)
	}
}
