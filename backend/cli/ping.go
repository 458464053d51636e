package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/meith-dev/meith/backend/client"
)

// ping is `meith ping [--count N] [--delay-ms N]`: it calls app_ping N times
// (default 4) over one connection and reports each round trip and a summary.
func (r *runner) ping(ctx context.Context, rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("ping takes no positional arguments (got %q).", rest[0])
	}
	count, err := intFlag(r.a, 4, 1, "count")
	if err != nil {
		return r.p.usage("--count must be a positive integer.")
	}
	delay, err := intFlag(r.a, 0, 0, "delay-ms", "delayMs")
	if err != nil {
		return r.p.usage("--delay-ms must be a non-negative integer (milliseconds).")
	}
	args := json.RawMessage(`{}`)
	if delay > 0 {
		args = json.RawMessage(fmt.Sprintf(`{"delayMs":%d}`, delay))
	}

	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()

	var times []float64
	failed, pid := 0, 0
	interrupted := false
	for i := 0; i < count; i++ {
		start := time.Now()
		res, err := c.Call(ctx, "app_ping", args, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout, OnEvent: r.p.event})
		rtt := time.Since(start)
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		if err != nil {
			return r.p.fail(t.SocketPath, err)
		}
		if !res.OK {
			failed++
			if !r.p.json {
				r.p.toolError(res.Error)
			}
			continue
		}
		var pong struct {
			PID int `json:"pid"`
		}
		_ = json.Unmarshal(res.Content, &pong)
		if pong.PID != 0 {
			pid = pong.PID
		}
		ms := float64(rtt.Microseconds()) / 1000
		times = append(times, ms)
		if !r.p.json && !r.p.quiet {
			if pong.PID != 0 {
				r.p.stdout("reply from pid %d: time=%.2f ms", pong.PID, ms)
			} else {
				r.p.stdout("reply: time=%.2f ms", ms)
			}
		}
	}

	lo, avg, hi := stats(times)
	if r.p.json {
		if times == nil {
			times = []float64{}
		}
		r.p.jsonValue(struct {
			PID     int       `json:"pid,omitempty"`
			Calls   int       `json:"calls"`
			Failed  int       `json:"failed"`
			TimesMs []float64 `json:"timesMs"`
			MinMs   float64   `json:"minMs"`
			AvgMs   float64   `json:"avgMs"`
			MaxMs   float64   `json:"maxMs"`
		}{pid, len(times), failed, times, lo, round3(avg), hi})
	} else {
		line := fmt.Sprintf("%d calls", len(times))
		if failed > 0 {
			line += fmt.Sprintf(", %d failed", failed)
		}
		if len(times) > 0 {
			line += fmt.Sprintf(", min/avg/max = %.2f/%.2f/%.2f ms", lo, avg, hi)
		}
		r.p.stdout("%s", line)
	}
	switch {
	case interrupted:
		return exitInterrupted
	case failed > 0:
		return exitFailure
	}
	return exitOK
}

// intFlag reads the first of names as an integer ≥ lowest, or def when
// absent.
func intFlag(a *Args, def, lowest int, names ...string) (int, error) {
	v, present, bare := a.Value(names...)
	if !present {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if bare || err != nil || n < lowest {
		return 0, fmt.Errorf("invalid value %q", v)
	}
	return n, nil
}

func stats(xs []float64) (lo, avg, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	sum := 0.0
	for _, x := range xs {
		lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
	}
	return lo, sum / float64(len(xs)), hi
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
