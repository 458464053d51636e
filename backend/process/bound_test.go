package process

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// heapInUse is the live Go heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// waitLong polls cond for up to 2 minutes (a flood through the race
// detector is slow; this bounds a hang, it is not a timing assertion).
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDevServerOutputBytesBounded: a real dev server printing 50 MB as one
// line, then 8 MB of random bytes, keeps at most MaxLogBytes in its ring,
// answers LogPage and the OutputHandler in bounded pages that page through
// what is held, keeps the Go heap small, and keeps endedLogBytes once
// stopped.
func TestDevServerOutputBytesBounded(t *testing.T) {
	m := newManager(t, Options{})
	gate := filepath.Join(t.TempDir(), "gate")
	before := heapInUse()
	d := startDev(t, m, DevSpec{Command: `head -c 50000000 /dev/zero | tr '\0' a; echo; echo flood-one-done; ` +
		`while [ ! -e '` + gate + `' ]; do sleep 0.05; done; ` +
		`head -c 8000000 /dev/urandom; echo; echo flood-random-done; exec sleep 30`})
	dev := m.dev(d.ID)
	waitLong(t, "the one-line flood", func() bool {
		e, _, _ := m.Logs(d.ID, 0, 1)
		return len(e) > 0 && e[0].Text == "flood-one-done"
	})
	if got := dev.log.heldBytes(); got > MaxLogBytes {
		t.Errorf("after 50 MB as one line the ring holds %d bytes of text, want at most MaxLogBytes = %d", got, MaxLogBytes)
	}
	if grown := int64(heapInUse()) - int64(before); grown > 40<<20 {
		t.Errorf("the Go heap grew by %d MiB for a server holding %d KiB of output", grown>>20, dev.log.heldBytes()>>10)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the random flood", func() bool {
		e, _, _ := m.Logs(d.ID, 0, 3)
		return len(e) > 0 && e[len(e)-1].Text == "flood-random-done"
	})
	if got := dev.log.heldBytes(); got > MaxLogBytes {
		t.Errorf("the ring holds %d bytes of text, want at most MaxLogBytes = %d", got, MaxLogBytes)
	}

	// LogPage: the newest entries fit in the bound (random bytes expand
	// up to 6× as JSON); paging forward from 0 reaches the end.
	page, err := m.LogPage(d.ID, LogQuery{Newest: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(page.Entries)
	if len(b) > MaxLogPageBytes || !page.Truncated || page.Entries[len(page.Entries)-1].Text != "flood-random-done" {
		t.Errorf("newest page: %d bytes of JSON (bound %d), truncated %v, last %.40q", len(b), MaxLogPageBytes, page.Truncated, page.Entries[len(page.Entries)-1].Text)
	}
	var after int64
	pages, seen := 0, 0
	for {
		p, err := m.LogPage(d.ID, LogQuery{After: after})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(p.Entries); len(b) > MaxLogPageBytes {
			t.Fatalf("page %d: %d bytes of JSON", pages, len(b))
		}
		for i, e := range p.Entries {
			if i > 0 && e.Seq != p.Entries[i-1].Seq+1 {
				t.Fatalf("page %d: seq %d after %d", pages, e.Seq, p.Entries[i-1].Seq)
			}
		}
		pages++
		seen += len(p.Entries)
		if len(p.Entries) > 0 {
			after = p.Entries[len(p.Entries)-1].Seq
		}
		if !p.Truncated {
			break
		}
	}
	held, _, _ := m.Logs(d.ID, 0, 0)
	if pages < 2 || seen != len(held) {
		t.Errorf("paged %d entries in %d pages, %d held", seen, pages, len(held))
	}

	// The OutputHandler pages too.
	srv := httptest.NewServer(m.OutputHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + OutputPath + d.ID + "/output?after=0")
	if err != nil {
		t.Fatal(err)
	}
	var body outputResponse
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(body); len(b) > outputPageBytes+1024 || !body.Truncated || len(body.Entries) == 0 ||
		body.NextSeq != body.Entries[len(body.Entries)-1].Seq+1 {
		t.Errorf("output page: %d bytes, truncated %v, %d entries, nextSeq %d", len(b), body.Truncated, len(body.Entries), body.NextSeq)
	}

	if err := m.StopDevServer(t.Context(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got := dev.log.heldBytes(); got > endedLogBytes {
		t.Errorf("a stopped server's ring holds %d bytes, want at most %d", got, endedLogBytes)
	}
	if e, _, _ := m.Logs(d.ID, 0, 1); len(e) != 1 || !strings.HasPrefix(e[0].Text, "exited with signal") {
		t.Errorf("a stopped server's last entry = %+v", e)
	}
}

func TestJSONTextLenBoundsEncoding(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "\n\r\t\x00\x1f<>&", "é€😀", "\u2028\u2029", "\xff\xfe\x80a\xc3", strings.Repeat("\x01", 100)} {
		b, _ := json.Marshal(s)
		if got, enc := jsonTextLen(s), len(b)-2; got < enc || got > 6*len(s) {
			t.Errorf("jsonTextLen(%q) = %d; encoded %d bytes, input %d", s, got, enc, len(s))
		}
	}
}
