// Command agentbench measures what the agent path adds (issue 8, point 10):
//
//   - the latency of a tool call made by an agent through the per-session MCP
//     bridge (the scripted ACP agent's MCP client → HTTP → bridge → the
//     AgentService's recorded, gated call → registry) against the same call
//     over the socket (the Go client), both of app_ping, in one run;
//   - the memory of 10 concurrent idle sessions (each with its agent process
//     and MCP token alive): the runtime's RSS and Go heap before and after,
//     and the agents' own RSS.
//
// It prints the numbers and the ratios; it asserts nothing.
//
//	go run ./bench/cmd/agentbench -agent build/bin/scriptagent [-n 2000] [-sessions 10]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/protocol"
)

func main() {
	bin := flag.String("agent", "", "the scripted ACP agent (go build -o … ./backend/agent/testdata/scriptagent)")
	n := flag.Int("n", 2000, "calls per round")
	rounds := flag.Int("rounds", 3, "alternating rounds of socket and bridge calls")
	sessions := flag.Int("sessions", 10, "idle sessions for the memory measure")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the runtime side to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentbench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "agentbench: -agent is required")
		os.Exit(2)
	}
	if err := run(*bin, *n, *rounds, *sessions); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		os.Exit(1)
	}
}

func run(bin string, n, rounds, sessions int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "agentbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	inst, err := instance.New(instance.Config{Home: filepath.Join(tmp, "home"), UserData: filepath.Join(tmp, "data"), Label: "agentbench"})
	if err != nil {
		return err
	}
	if err := inst.Start(ctx); err != nil {
		return err
	}
	defer inst.Close(context.Background())
	custom := agent.PresetCustom
	abs, _ := filepath.Abs(bin)
	if _, err := inst.Agents().SetConfig(agent.ConfigPatch{Preset: &custom, Command: &abs}, true); err != nil {
		return err
	}
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)

	c, err := client.Dial(ctx, inst.SocketPath())
	if err != nil {
		return err
	}
	defer c.Close()
	sess, err := inst.Agents().Create(agent.CreateInput{Cwd: work})
	if err != nil {
		return err
	}
	// Warm both paths (the agent process starts on the first message).
	if _, err := socketRound(ctx, c, 200); err != nil {
		return err
	}
	if _, err := bridgeRound(ctx, inst, sess.ID, 200); err != nil {
		return err
	}
	var sock, br []float64
	for r := 0; r < rounds; r++ {
		s, err := socketRound(ctx, c, n)
		if err != nil {
			return err
		}
		b, err := bridgeRound(ctx, inst, sess.ID, n)
		if err != nil {
			return err
		}
		fmt.Printf("round %d: socket median %.0f µs · bridge median %.0f µs\n", r+1, s, b)
		sock, br = append(sock, s), append(br, b)
	}
	ms, mb := median(sock), median(br)
	fmt.Printf("app_ping, %d calls × %d rounds, median of the rounds' medians:\n", n, rounds)
	fmt.Printf("  socket (Go client)                 %7.0f µs\n", ms)
	fmt.Printf("  MCP bridge (agent's MCP client)    %7.0f µs   extra %+.0f µs (%.2f×)\n", mb, mb-ms, mb/ms)

	return idleMemory(ctx, inst, work, sessions)
}

// socketRound times n sequential app_ping calls over the socket and
// returns the median in µs.
func socketRound(ctx context.Context, c *client.Client, n int) (float64, error) {
	lat := make([]float64, 0, n)
	ci := protocol.ClientInfo{Caller: protocol.CallerCLI}
	for range n {
		start := time.Now()
		res, err := c.Call(ctx, "app_ping", json.RawMessage(`{}`), client.CallOptions{ClientInfo: ci})
		if err != nil {
			return 0, err
		}
		if !res.OK {
			return 0, fmt.Errorf("app_ping: %+v", res.Error)
		}
		lat = append(lat, float64(time.Since(start).Microseconds()))
	}
	return median(lat), nil
}

var benchLine = regexp.MustCompile(`bench app_ping: n=(\d+) median=(\d+)us p90=(\d+)us errors=(\d+)`)

// bridgeRound asks the scripted agent to make n sequential app_ping calls
// through its MCP connection and returns the median it measured, in µs.
func bridgeRound(ctx context.Context, inst *instance.Instance, id string, n int) (float64, error) {
	res, err := inst.Agents().Send(ctx, agent.SendInput{SessionID: id, Text: fmt.Sprintf("bench app_ping %d", n)}, nil)
	if err != nil {
		return 0, err
	}
	m := benchLine.FindStringSubmatch(res.Text)
	if m == nil {
		return 0, fmt.Errorf("the agent answered %q", res.Text)
	}
	if m[4] != "0" {
		return 0, fmt.Errorf("%s of the bridge calls failed", m[4])
	}
	v, _ := strconv.ParseFloat(m[2], 64)
	return v, nil
}

// idleMemory starts k sessions (each answers one message, so its agent
// process and MCP token stay up, idle) and reports the memory they hold.
func idleMemory(ctx context.Context, inst *instance.Instance, work string, k int) error {
	before := snapshot()
	var wg sync.WaitGroup
	errs := make(chan error, k)
	for range k {
		wg.Go(func() {
			s, err := inst.Agents().Create(agent.CreateInput{Cwd: work})
			if err == nil {
				_, err = inst.Agents().Send(ctx, agent.SendInput{SessionID: s.ID, Text: "say ready"}, nil)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	time.Sleep(500 * time.Millisecond)
	after := snapshot()
	agents := agentRSS()
	fmt.Printf("%d idle sessions (agent process + MCP token each):\n", k)
	fmt.Printf("  runtime RSS   %6.1f MiB → %6.1f MiB  (+%.2f MiB, %.0f KiB per session)\n",
		mib(before.rss), mib(after.rss), mib(after.rss-before.rss), float64(after.rss-before.rss)/1024/float64(k))
	fmt.Printf("  runtime heap  %6.1f MiB → %6.1f MiB  (+%.2f MiB)\n", mib(before.heap), mib(after.heap), mib(after.heap-before.heap))
	fmt.Printf("  agent processes: %d, %.1f MiB RSS in all (the scripted agent; a real agent's own memory is its own)\n", len(agents), mib(sum(agents)))
	return nil
}

type mem struct{ rss, heap int64 }

func snapshot() mem {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return mem{rss: rssOf(os.Getpid()), heap: int64(ms.HeapInuse)}
}

// rssOf reads VmRSS of a process in bytes.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// agentRSS returns the RSS of this process's scriptagent children.
func agentRSS() []int64 {
	var out []int64
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(scriptagent") {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == self {
			out = append(out, rssOf(pid))
		}
	}
	return out
}

func sum(v []int64) int64 {
	var t int64
	for _, x := range v {
		t += x
	}
	return t
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
