// Command logpull measures the window's path for dev-server logs: a real
// process.Manager runs a process that prints N numbered lines as fast as
// it can, and a client pulls them through the engine's output handler
// (HTTP long poll, as the Output panel does) while another follows them
// with WaitLogs (as attach_process_logs does). It prints lines/s and lines
// lost for each reader, the CPU time of this process and its peak RSS.
//
//	go run ./bench/cmd/logpull -lines 200000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/process"
)

// reader is what one reader saw.
type reader struct {
	name        string
	seen        map[int]bool
	first, last time.Time
}

func (r *reader) take(entries []process.LogEntry, n int) bool {
	for _, e := range entries {
		v, err := strconv.Atoi(strings.TrimSpace(e.Text))
		if err != nil {
			continue
		}
		if r.first.IsZero() {
			r.first = time.Now()
		}
		r.seen[v] = true
		if v == n {
			r.last = time.Now()
			return true
		}
	}
	return false
}

func main() {
	lines := flag.Int("lines", 200000, "lines the process prints")
	rate := flag.Int("rate", 0, "lines per second (0: as fast as it can)")
	flag.Parse()
	dir, _ := os.MkdirTemp("", "logpull-")
	defer os.RemoveAll(dir)
	m := process.New(process.Options{})
	defer m.Shutdown(context.Background(), true)
	h := httptest.NewServer(m.OutputHandler())
	defer h.Close()

	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := fmt.Sprintf("sleep 0.5; seq 1 %d", *lines)
	if *rate > 0 {
		// Paced: 1,000 lines at a time, rate lines a second.
		cmd = fmt.Sprintf(`sleep 0.5; python3 -c 'import sys,time
n,r=%d,%d
t=time.time()
for i in range(1,n+1,1000):
    sys.stdout.write("".join("%%d\n"%%j for j in range(i,min(i+1000,n+1)))); sys.stdout.flush()
    t+=1000/r; d=t-time.time()
    if d>0: time.sleep(d)'`, *lines, *rate)
	}
	dev, err := m.StartDevServer(ctx, process.DevSpec{Cwd: dir, Command: cmd})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pull := &reader{name: "output handler (window)", seen: map[int]bool{}}
	wait := &reader{name: "WaitLogs (attach_process_logs)", seen: map[int]bool{}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		var after int64
		for ctx.Err() == nil {
			resp, err := http.Get(fmt.Sprintf("%s%s%s/output?after=%d", h.URL, process.OutputPath, dev.ID, after))
			if err != nil {
				return
			}
			var body struct {
				Entries []process.LogEntry `json:"entries"`
				NextSeq int64              `json:"nextSeq"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if len(body.Entries) > 0 {
				after = body.Entries[len(body.Entries)-1].Seq
			}
			if pull.take(body.Entries, *lines) {
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		var after int64
		for ctx.Err() == nil {
			entries, _, err := m.WaitLogs(ctx, dev.ID, after)
			if err != nil {
				return
			}
			if len(entries) > 0 {
				after = entries[len(entries)-1].Seq
			}
			if wait.take(entries, *lines) {
				return
			}
		}
	}()
	wg.Wait()
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) * time.Nanosecond
	what := "as fast as it can"
	if *rate > 0 {
		what = fmt.Sprintf("paced at %d lines/s", *rate)
	}
	fmt.Printf("a process printing %d lines %s:\n", *lines, what)
	for _, r := range []*reader{pull, wait} {
		secs := r.last.Sub(r.first).Seconds()
		fmt.Printf("%-32s %d of %d lines in %.2f s (%.0f lines/s), lost %d\n", r.name, len(r.seen), *lines, secs, float64(len(r.seen))/secs, *lines-len(r.seen))
	}
	if held, _, err := m.Logs(dev.ID, 0, 0); err == nil && len(held) > 0 {
		fmt.Printf("the ring holds %d entries, seq %d..%d\n", len(held), held[0].Seq, held[len(held)-1].Seq)
	}
	fmt.Printf("engine + readers (one process): CPU %.2f s, peak RSS %d MB\n", cpu.Seconds(), ru1.Maxrss/1024)
}
