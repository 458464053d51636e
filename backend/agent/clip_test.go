package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestClipJSON: clipJSON(raw, limit) = got, want want — an object keeps its
// small fields (the path a window opens) and loses its large ones; anything
// else, or an object whose small fields alone are too many, is one marker.
func TestClipJSON(t *testing.T) {
	big := strings.Repeat("x", 5000)
	many := map[string]string{}
	for i := range 200 {
		many[fmt.Sprintf("k%03d", i)] = strings.Repeat("v", 100)
	}
	manyJSON, _ := json.Marshal(many)
	for _, tc := range []struct {
		name string
		raw  string
		want string
	}{
		{"object keeps small fields", `{"path":"src/a.go","line":3,"content":"` + big + `"}`,
			`{"content":"[clipped 5002 bytes]","line":3,"path":"src/a.go"}`},
		{"array", `["` + big + `"]`, `"[clipped 5004 bytes]"`},
		{"string", `"` + big + `"`, `"[clipped 5002 bytes]"`},
		{"not JSON", `{"path":` + big, `"[clipped 5008 bytes]"`},
		{"small fields beyond the limit", string(manyJSON), fmt.Sprintf(`"[clipped %d bytes]"`, len(manyJSON))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := clipJSON(json.RawMessage(tc.raw), 4096)
			if string(got) != tc.want {
				t.Errorf("clipJSON = %s, want %s", got, tc.want)
			}
			if !json.Valid(got) || len(got) > 4096 {
				t.Errorf("clipJSON gave %d bytes of valid=%v JSON", len(got), json.Valid(got))
			}
		})
	}
}
