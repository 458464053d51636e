package instance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestManyClientsRandomCancelsAndDisconnects drives the real runtime with
// many clients making concurrent calls. Every call is known to have reached
// the runtime (it waits for the call's first progress event) before it is
// cancelled at a random moment, or before its whole connection is dropped.
// Then: every call of a surviving connection resolves exactly once (ok, or
// CANCELLED when cancelled), audit.jsonl has exactly one line per call, and
// no goroutine is left once the runtime closes.
func TestManyClientsRandomCancelsAndDisconnects(t *testing.T) {
	base := runtime.NumGoroutine()
	inst := instancetest.New(t)
	const clients, calls = 12, 30
	rng := rand.New(rand.NewPCG(1, 2))

	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for c := range clients {
		drop := c%4 == 3 // a quarter of the clients vanish mid-call
		cancels := make([]bool, calls)
		delays := make([]time.Duration, calls)
		for i := range cancels {
			cancels[i] = rng.IntN(3) == 0
			delays[i] = time.Duration(rng.IntN(10)) * time.Millisecond
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := client.Dial(context.Background(), inst.SocketPath)
			if err != nil {
				errs <- err
				return
			}
			defer cl.Close()
			var started, done sync.WaitGroup
			for i := range calls {
				started.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					var once sync.Once
					onEvent := func(protocol.Event) {
						once.Do(func() {
							started.Done() // the runtime runs this call
							if cancels[i] {
								time.AfterFunc(delays[i], cancel)
							}
						})
					}
					// progressSteps 20 over 300 ms: the first event comes at
					// 15 ms, and the call ends at 300 ms unless cancelled.
					delay, steps := 300, 20
					if drop {
						// Long enough that every call is still waiting when
						// its connection drops, however slow the machine
						// is to start them all (the drop cancels them);
						// the first event still comes at 30 ms.
						delay, steps = 3000, 100
					}
					args := fmt.Sprintf(`{"delayMs":%d,"progressSteps":%d,"message":"c%d-%d"}`, delay, steps, c, i)
					res, err := cl.Call(ctx, "app_ping", json.RawMessage(args), client.CallOptions{OnEvent: onEvent})
					switch {
					case drop:
						// Its connection is dropped: an error or a result
						// both happen; the runtime's audit is checked below.
					case err != nil:
						errs <- fmt.Errorf("call c%d-%d: %v", c, i, err)
					case res.OK && !cancels[i]:
					case cancels[i] && (res.OK || res.Error.Code == protocol.CodeCancelled):
						// Cancelled before or after it finished.
					default:
						errs <- fmt.Errorf("call c%d-%d (cancel %v) = %+v", c, i, cancels[i], res.Error)
					}
				}()
			}
			if drop {
				started.Wait()
				cl.Close() // abruptly, with calls in flight
			}
			done.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Calls of dropped connections resolve in the runtime after their
	// clients gave up: wait for the registry to be idle, then for the file.
	for inst.Registry().InFlight() != 0 {
		if ctx.Err() != nil {
			t.Fatalf("registry InFlight = %d, want 0", inst.Registry().InFlight())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := inst.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(inst.UserData, instance.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	lines, droppedCancelled := 0, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e struct{ ArgsSummary, ResultSummary string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		var args struct{ Message string }
		json.Unmarshal([]byte(e.ArgsSummary), &args)
		seen[args.Message]++
		lines++
		var c, i int
		if _, err := fmt.Sscanf(args.Message, "c%d-%d", &c, &i); err == nil && c%4 == 3 &&
			strings.Contains(e.ResultSummary, string(protocol.CodeCancelled)) {
			droppedCancelled++
		}
	}
	if lines != clients*calls {
		t.Errorf("audit.jsonl has %d lines, want %d (one per call)", lines, clients*calls)
	}
	for c := range clients {
		for i := range calls {
			if n := seen[fmt.Sprintf("c%d-%d", c, i)]; n != 1 {
				t.Errorf("call c%d-%d audited %d times, want once", c, i, n)
			}
		}
	}

	// Dropping a connection cancels its calls in flight: the calls of the
	// dropped clients were mid-wait (their first progress event had come).
	if droppedCancelled == 0 {
		t.Error("no call of a dropped connection was cancelled by the runtime")
	}

	inst.Close(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutine leak: %d now, %d before\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
