package files

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// TestResultsFitInAFrame: a result the socket could not carry would be
// replaced by TOOL_FAILED "result too large" after the change was made,
// so the caller would believe a done change failed. Text whose JSON
// escapes are long ('<' is six bytes in JSON) must still give results
// that fit in a frame: a read is cut shorter, a write or undo leaves the
// contents out of its undo entry (the history keeps them), and a patch
// whose before and after cannot fit is refused before anything changes.
func TestResultsFitInAFrame(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	fits := func(what string, v any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > protocol.MaxFrameBytes-1024 { // room for the frame's envelope
			t.Errorf("%s result is %d bytes of JSON, over a frame (%d)", what, len(b), protocol.MaxFrameBytes)
		}
	}
	angles := strings.Repeat("<", MaxReadBytes-10) // 12 MB of JSON
	f.write("angles.html", angles, 0o644)

	r, err := f.e.Read(ctx, f.s, "angles.html")
	if err != nil {
		t.Fatal(err)
	}
	fits("read", r)
	if !r.Truncated || r.Content == "" || !strings.HasPrefix(angles, r.Content) || r.Bytes != int64(len(angles)) {
		t.Errorf("read: truncated %v, %d bytes of content, bytes %d", r.Truncated, len(r.Content), r.Bytes)
	}

	amps := strings.Repeat("&", MaxUndoContentBytes-10)
	w, err := f.e.Write(ctx, f.s, "angles.html", amps, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fits("write", w)
	if f.content("angles.html") != amps || !w.Undo.ContentOmitted || w.Undo.PreviousContent != nil {
		t.Errorf("write: undo %+v", w.Undo.ContentOmitted)
	}
	u, err := f.e.Undo(ctx, f.s, "angles.html")
	if err != nil || u == nil {
		t.Fatalf("undo: %v", err)
	}
	fits("undo", u)
	if f.content("angles.html") != angles {
		t.Error("the undo did not restore the content the result left out")
	}

	// A patch whose before and after cannot fit: refused, file unchanged.
	_, err = f.e.Patch(ctx, f.s, "angles.html", []Edit{{Start: 0, End: 1, NewText: "x"}}, PatchOptions{})
	if !IsKind(err, KindTooLarge) || f.content("angles.html") != angles {
		t.Fatalf("patch of a file whose result cannot be sent: %v", err)
	}
	// One that fits without its undo contents: applied, contents left out.
	f.write("half.html", strings.Repeat("<", 600<<10), 0o644)
	p, err := f.e.Patch(ctx, f.s, "half.html", []Edit{{Start: 0, End: 0, NewText: "x"}}, PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fits("patch", p)
	if !p.Undo.ContentOmitted || p.After != "x"+strings.Repeat("<", 600<<10) {
		t.Errorf("patch: contentOmitted %v", p.Undo.ContentOmitted)
	}
}

func TestJSONTextLen(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "tab\tnl\ncr\r", "\x01\x1f", "<a href='x'>&amp;</a>", "é😀", "\u2028\u2029", "bad\xffutf8"} {
		b, _ := json.Marshal(s)
		if got := jsonTextLen(s); got != len(b) {
			t.Errorf("jsonTextLen(%q) = %d, json.Marshal gives %d", s, got, len(b))
		}
	}
}
