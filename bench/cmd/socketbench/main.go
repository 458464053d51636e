// Command socketbench measures app_ping round trips over the meith socket
// against a bare NDJSON echo over a unix socket (the floor), in one run:
// latency with one client and throughput with 16 concurrent clients. It
// prints the numbers and the ratios; it asserts nothing.
//
//	go run ./bench/cmd/socketbench [-n 20000] [-d 3s] [-clients 16] [-cpuprofile f] [-memprofile f]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/instance"
)

func main() {
	n := flag.Int("n", 20000, "round trips for the one-client latency run")
	dur := flag.Duration("d", 3*time.Second, "duration of each throughput run")
	clients := flag.Int("clients", 16, "concurrent clients for the throughput run")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	serveGC := flag.Bool("serve-gc", true, "apply the garbage collector settings of `meith serve` (instance.ApplyServeGC; GOGC or GOMEMLIMIT in the environment win)")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file (every allocation sampled)")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 1
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "socketbench:", err)
				return
			}
			defer f.Close()
			pprof.Lookup("allocs").WriteTo(f, 0)
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "socketbench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	gc := "Go defaults"
	if *serveGC && instance.ApplyServeGC(os.Getenv) {
		gc = fmt.Sprintf("meith serve's (GOGC=%d, soft limit %d MiB)", instance.ServeGCPercent, instance.ServeMemoryLimit>>20)
	} else if v := os.Getenv("GOGC"); v != "" {
		gc = "GOGC=" + v
	}
	fmt.Printf("socketbench: garbage collector: %s\n", gc)
	if err := run(*n, *dur, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "socketbench:", err)
		os.Exit(1)
	}
}

// request is the frame both servers get: a real app_ping tool_call.
const request = `{"type":"tool_call","protocol":1,"requestId":"req_bench","toolName":"app_ping","arguments":{},"clientInfo":{"caller":"cli"}}` + "\n"

func run(n int, dur time.Duration, clients int) error {
	root, err := os.MkdirTemp("", "sb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)

	echoPath := filepath.Join(root, "echo.sock")
	stopEcho, err := startEcho(echoPath)
	if err != nil {
		return err
	}
	defer stopEcho()

	inst, err := instance.New(instance.Config{Home: filepath.Join(root, "h"), UserData: filepath.Join(root, "u")})
	if err != nil {
		return err
	}
	if err := inst.Start(context.Background()); err != nil {
		return err
	}
	defer inst.Close(context.Background())

	fmt.Printf("socketbench: GOMAXPROCS=%d, %d round trips, %d clients for %v, alternating echo and app_ping in 5 rounds\n\n", runtime.GOMAXPROCS(0), n, clients, dur)
	// Warm up both paths.
	if _, err := latency(echoPath, 2000); err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	if _, err := latency(inst.SocketPath(), 2000); err != nil {
		return fmt.Errorf("app_ping: %w", err)
	}

	// Alternate the two servers in rounds so that drift on the machine (other
	// processes, frequency changes) hits both alike; report medians.
	const rounds = 5
	var echoLats, pingLats []time.Duration
	var echoTPs, pingTPs, echoCPUs, pingCPUs []float64
	for range rounds {
		e, err := latencySamples(echoPath, n/rounds)
		if err != nil {
			return err
		}
		p, err := latencySamples(inst.SocketPath(), n/rounds)
		if err != nil {
			return err
		}
		echoLats, pingLats = append(echoLats, e...), append(pingLats, p...)
		et, ec, err := throughput(echoPath, clients, dur/rounds)
		if err != nil {
			return err
		}
		pt, pc, err := throughput(inst.SocketPath(), clients, dur/rounds)
		if err != nil {
			return err
		}
		echoTPs, pingTPs = append(echoTPs, et), append(pingTPs, pt)
		echoCPUs, pingCPUs = append(echoCPUs, ec), append(pingCPUs, pc)
	}
	echoLat, pingLat := summarize(echoLats), summarize(pingLats)
	echoTP, pingTP := medianOf(echoTPs), medianOf(pingTPs)

	fmt.Printf("%-28s %12s %12s %12s\n", "", "echo floor", "app_ping", "ratio")
	fmt.Printf("%-28s %10.1fµs %10.1fµs %11.2f×  (goal ≤ 2×)\n", "1 client, median latency", us(echoLat.median), us(pingLat.median), float64(pingLat.median)/float64(echoLat.median))
	fmt.Printf("%-28s %10.1fµs %10.1fµs %11.2f×\n", "1 client, p99 latency", us(echoLat.p99), us(pingLat.p99), float64(pingLat.p99)/float64(echoLat.p99))
	fmt.Printf("%-28s %10.0f/s %10.0f/s %11.0f%%  (goal ≥ 50%%)\n", fmt.Sprintf("%d clients, throughput", clients), echoTP, pingTP, 100*pingTP/echoTP)
	// The process's CPU time per call in the throughput runs (clients
	// included, alike for both): what the throughput ratio would be if
	// the process had the cores to itself, so it moves less with the
	// machine's load than the throughput does.
	echoCPU, pingCPU := medianOf(echoCPUs), medianOf(pingCPUs)
	fmt.Printf("%-28s %10.1fµs %10.1fµs %11.0f%%  (echo ÷ app_ping)\n", fmt.Sprintf("%d clients, CPU per call", clients), echoCPU, pingCPU, 100*echoCPU/pingCPU)
	return nil
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// startEcho serves a bare NDJSON echo: every line read is written back.
func startEcho(path string) (func(), error) {
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadSlice('\n')
					if err != nil {
						return
					}
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return func() { l.Close(); wg.Wait() }, nil
}

// roundTripper sends the request and reads the reply line.
type roundTripper struct {
	c net.Conn
	r *bufio.Reader
}

func dial(path string) (*roundTripper, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	return &roundTripper{c: c, r: bufio.NewReaderSize(c, 64*1024)}, nil
}

func (rt *roundTripper) do() error {
	if _, err := rt.c.Write([]byte(request)); err != nil {
		return err
	}
	for {
		line, err := rt.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		// The echo returns the tool_call; the runtime its tool_result.
		if strings.Contains(string(line), `"tool_call"`) || strings.Contains(string(line), `"tool_result"`) {
			if strings.Contains(string(line), `"ok":false`) {
				return fmt.Errorf("call failed: %s", line)
			}
			return nil
		}
	}
}

type latencies struct{ median, p99 time.Duration }

func latency(path string, n int) (latencies, error) {
	ds, err := latencySamples(path, n)
	if err != nil {
		return latencies{}, err
	}
	return summarize(ds), nil
}

// latencySamples times n sequential round trips on one connection.
func latencySamples(path string, n int) ([]time.Duration, error) {
	rt, err := dial(path)
	if err != nil {
		return nil, err
	}
	defer rt.c.Close()
	ds := make([]time.Duration, n)
	for i := range ds {
		t := time.Now()
		if err := rt.do(); err != nil {
			return nil, err
		}
		ds[i] = time.Since(t)
	}
	return ds, nil
}

func summarize(ds []time.Duration) latencies {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return latencies{median: ds[len(ds)/2], p99: ds[len(ds)*99/100]}
}

func medianOf(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// throughput runs clients for dur and returns the calls per second and the
// process's CPU time (user + system) per call, in µs.
func throughput(path string, clients int, dur time.Duration) (float64, float64, error) {
	var ops atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt, err := dial(path)
			if err != nil {
				firstErr.CompareAndSwap(nil, err)
				return
			}
			defer rt.c.Close()
			for time.Now().Before(deadline) {
				if err := rt.do(); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err, ok := firstErr.Load().(error); ok {
		return 0, 0, err
	}
	n := float64(ops.Load())
	return n / elapsed.Seconds(), us(cpu) / n, nil
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
