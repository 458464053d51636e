package browsertools_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// hungCallTimeout is the timeout the test gives each call: far longer than
// the engine's per-call page deadline, so an answer that comes at all before
// it comes from that deadline, not from the call's timeout.
const hungCallTimeout = 90 * time.Second

// TestHungPage: a page stuck in a script loop makes get_browser_state and
// take_screenshot fail with TOOL_FAILED "page not responding" instead of
// waiting for the call's own timeout; other tabs and close_browser_tab keep
// working.
func TestHungPage(t *testing.T) {
	needChromium(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Hung</title><p>soon stuck</p><script>setTimeout(()=>{while(true){}},100)</script>`)
	})
	mux.HandleFunc("/fine", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Fine</title><button>ok</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	inst := instancetest.New(t)
	reg := inst.Registry()
	call := func(tool string, args string) protocol.ToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hungCallTimeout+30*time.Second)
		defer cancel()
		return reg.Call(ctx, registry.Request{RequestID: protocol.NewID("req"), ToolName: tool,
			Args: []byte(args), Client: renderer, Timeout: hungCallTimeout})
	}
	c := caller{t: t, reg: reg}
	var hung, fine state.BrowserTab
	c.ok(renderer, "open_browser_tab", map[string]any{"url": srv.URL + "/hang"}, &hung)
	// Another site (localhost, not 127.0.0.1): its own renderer process.
	c.ok(renderer, "open_browser_tab", map[string]any{"url": strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/fine"}, &fine)

	tabArgs := fmt.Sprintf(`{"tabId":%q}`, hung.ID)
	for _, tool := range []string{"get_browser_state", "take_screenshot"} {
		var res protocol.ToolResult
		// The loop starts 100 ms after the load: a call that came first
		// still answers; the next ones meet the stuck page.
		for attempt := 0; attempt < 20; attempt++ {
			if res = call(tool, tabArgs); !res.OK {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if res.OK || res.Error == nil {
			t.Fatalf("%s on a hung page: ok, want TOOL_FAILED page not responding", tool)
		}
		if res.Error.Code != protocol.CodeToolFailed || !strings.Contains(res.Error.Message, "page not responding") {
			t.Fatalf("%s on a hung page: %s %q, want TOOL_FAILED \"page not responding\" (long before the call's %s timeout)",
				tool, res.Error.Code, res.Error.Message, hungCallTimeout)
		}
		if _, details := decodeFail(t, tool, res, protocol.CodeToolFailed); details["reason"] != "page_not_responding" || details["tabId"] != hung.ID {
			t.Errorf("%s on a hung page: details %v, want reason page_not_responding and the tab id", tool, details)
		}
	}
	// The other tab and the runtime are unaffected.
	var st struct {
		Title string `json:"title"`
	}
	decodeOK(t, "get_browser_state", call("get_browser_state", fmt.Sprintf(`{"tabId":%q}`, fine.ID)), &st)
	if st.Title != "Fine" {
		t.Errorf("the other tab's state: title %q, want Fine", st.Title)
	}
	decodeOK(t, "close_browser_tab", call("close_browser_tab", tabArgs), nil)
	if inst.Browser().Peek(hung.ID) != nil {
		t.Error("the hung tab is still live after close_browser_tab")
	}
}
