package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
)

// app dispatches `meith app <sub>`.
func (r *runner) app(ctx context.Context, rest []string) int {
	sub := ""
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	switch sub {
	case "", "help":
		r.appHelp()
		return exitOK
	case "list":
		return r.appList(rest)
	case "kill":
		return r.appKill(ctx, rest)
	case "health":
		return r.appTool(ctx, sub, "app_health", rest, nil, nil)
	case "logs":
		return r.appTool(ctx, sub, "app_get_logs", rest, renderLogEntries, nil)
	case "screenshot":
		return r.appTool(ctx, sub, "app_screenshot", rest, renderPath, nil)
	case "bug-report":
		return r.appTool(ctx, sub, "app_export_bug_report", rest, renderPath, map[string]string{"logs-limit": "logsLimit", "limit": "logsLimit"})
	}
	r.p.stderr("error: Unknown \"app\" subcommand %q. Try: list, health, logs, kill, bug-report, screenshot.", sub)
	return exitFailure
}

// appTool runs `meith app <sub>`: it calls tool with the generic flags as
// params; rename maps CLI flag names onto parameter names.
func (r *runner) appTool(ctx context.Context, sub, tool string, rest []string, render renderer, rename map[string]string) int {
	params, code := r.params(rest, BuildOptions{Command: `"app ` + sub + `"`})
	if params == nil {
		return code
	}
	for from, to := range rename {
		if v, ok := params[from]; ok {
			delete(params, from)
			params[to] = v
		}
	}
	return r.invoke(ctx, tool, params, render)
}

// liveInstances reads the live records of MEITH_HOME/instances.
func liveInstances() ([]discovery.Record, error) {
	paths, err := discovery.ResolvePaths("", "")
	if err != nil {
		return nil, err
	}
	return discovery.List(paths.InstancesDir)
}

// appList is `meith app list`: the live instances, read from the instance
// records (no runtime connection needed).
func (r *runner) appList(rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("app list takes no arguments (got %q).", rest[0])
	}
	live, err := liveInstances()
	if err != nil {
		return r.p.usage("%s", err)
	}
	if r.p.json {
		if live == nil {
			live = []discovery.Record{}
		}
		r.p.jsonValue(live)
		return exitOK
	}
	r.p.stdout("%s", strings.TrimRight(formatInstances(live), "\n"))
	return exitOK
}

// formatInstances renders the `app list` table: PID (8), STARTED (21, local
// "YYYY-MM-DD HH:MM:SS"), VERSION (10), LABEL.
func formatInstances(live []discovery.Record) string {
	if len(live) == 0 {
		return "No running meith instances.\n"
	}
	var b strings.Builder
	b.WriteString(pad("PID", 8) + pad("STARTED", 21) + pad("VERSION", 10) + "LABEL\n")
	for _, rec := range live {
		started := time.UnixMilli(rec.StartedAt).Local().Format("2006-01-02 15:04:05")
		version := rec.AppVersion
		if version == "" {
			version = "0.0.0"
		}
		b.WriteString(pad(strconv.Itoa(rec.PID), 8) + pad(started, 21) + pad(version, 10) + rec.Label + "\n")
	}
	return b.String()
}

// pad left-aligns s in width columns, keeping at least one space after it.
func pad(s string, width int) string {
	if len(s) >= width {
		return s + " "
	}
	return s + strings.Repeat(" ", width-len(s))
}

// appKill is `meith app kill [pid|label] [--all]`: SIGTERM to the chosen
// live instances.
func (r *runner) appKill(ctx context.Context, rest []string) int {
	if len(rest) > 1 {
		return r.p.usage("app kill takes one pid or label (got %q too).", rest[1])
	}
	target := r.instance
	if len(rest) == 1 {
		target = rest[0]
	}
	all := r.a.Bool("all")
	live, err := liveInstances()
	if err != nil {
		return r.p.usage("%s", err)
	}
	if len(live) == 0 {
		if !r.p.quiet {
			r.p.stdout("No running meith instances.")
		}
		return exitOK
	}
	victims := live
	if !all {
		switch {
		case target != "":
			rec, ok := discovery.Match(live, target)
			if !ok {
				return r.p.usage("No live instance matches %q. Run \"meith app list\" to see running instances.", target)
			}
			victims = []discovery.Record{rec}
		case len(live) > 1:
			return r.p.usage("Multiple instances running; pass a pid/label or --all. Run \"meith app list\" to see them.")
		}
	}
	var killed []string
	failed := false
	for _, rec := range victims {
		// A record can outlive a runtime killed with SIGKILL, and its pid
		// be reused: signal only a process that answers on the record's
		// socket as that very pid.
		if err := r.confirmRuntime(ctx, rec); err != nil {
			r.p.stderr("error: not signalling pid %d: %v", rec.PID, err)
			failed = true
			continue
		}
		if err := signalTerm(rec.PID); err != nil {
			r.p.stderr("error: could not signal pid %d: %v", rec.PID, err)
			failed = true
			continue
		}
		killed = append(killed, strconv.Itoa(rec.PID))
	}
	if r.p.json {
		pids := make([]int, 0, len(killed))
		for _, k := range killed {
			n, _ := strconv.Atoi(k)
			pids = append(pids, n)
		}
		r.p.jsonValue(map[string]any{"killed": pids})
	} else if len(killed) > 0 {
		r.p.stdout("Sent SIGTERM to: %s", strings.Join(killed, ", "))
	}
	if failed {
		return exitFailure
	}
	return exitOK
}

// confirmRuntime checks that rec's socket answers app_ping from rec's pid.
func (r *runner) confirmRuntime(ctx context.Context, rec discovery.Record) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := r.dial(ctx, rec.SocketPath)
	if err != nil {
		return fmt.Errorf("no meith runtime answers on %s (a stale record?)", rec.SocketPath)
	}
	defer c.Close()
	res, err := c.Call(ctx, "app_ping", nil, client.CallOptions{Timeout: 3 * time.Second})
	if err != nil || !res.OK {
		return fmt.Errorf("the runtime on %s does not answer app_ping", rec.SocketPath)
	}
	var pong struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(res.Content, &pong) != nil || pong.PID != rec.PID {
		return fmt.Errorf("the runtime on %s is pid %d, not %d (a stale record?)", rec.SocketPath, pong.PID, rec.PID)
	}
	return nil
}

// signalTerm sends SIGTERM to pid.
func signalTerm(pid int) error {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return proc.Signal(syscall.SIGTERM)
}
