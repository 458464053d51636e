package process

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OutputPath is the URL prefix of [Manager.OutputHandler].
const OutputPath = "/_meith/process/"

// outputPollWait is how long the OutputHandler waits for new entries.
var outputPollWait = 2 * time.Second

// outputResponse is the OutputHandler's answer.
type outputResponse struct {
	Entries   []LogEntry `json:"entries"`
	NextSeq   int64      `json:"nextSeq"`
	Status    string     `json:"status"`
	Truncated bool       `json:"truncated,omitempty"`
}

// OutputHandler serves the window's log and terminal views:
// GET /_meith/process/<id>/output?after=<seq> answers
// {"entries":[LogEntry…],"nextSeq":N,"status":"running"} as soon as there
// are entries after seq, or after ~2 s with none; 404 for an unknown id.
// One answer holds at most 1 MiB of entries (as JSON), the oldest after
// seq: when more are held it adds "truncated":true and gives as nextSeq the
// seq after its last entry, so the next request goes on from there.
// It expects the full path (mount it at OutputPath on a ServeMux).
func (m *Manager) OutputHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		rest, ok := strings.CutPrefix(r.URL.Path, OutputPath)
		id, tail, ok2 := strings.Cut(rest, "/")
		if !ok || !ok2 || id == "" || tail != "output" {
			writeJSONError(w, http.StatusNotFound, "not found")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeJSONError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		var after int64
		if s := r.URL.Query().Get("after"); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				writeJSONError(w, http.StatusBadRequest, "after must be an integer seq")
				return
			}
			after = n
		}
		ring, status, err := m.ring(id)
		if err != nil {
			writeJSONError(w, http.StatusNotFound, err.Error())
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), outputPollWait)
		defer cancel()
		entries, next, err := ring.wait(ctx, after)
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return // the client went away
		}
		entries, truncated := fitJSON(entries, outputPageBytes, false)
		if truncated {
			next = entries[len(entries)-1].Seq + 1
		}
		if entries == nil {
			entries = []LogEntry{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(outputResponse{Entries: entries, NextSeq: next, Status: status(), Truncated: truncated})
	})
}

func writeJSONError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
