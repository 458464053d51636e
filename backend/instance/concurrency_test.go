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
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestManyClientsRandomCancels drives the real runtime with many clients
// making concurrent calls, a share of them cancelled at random moments:
// every call resolves exactly once (ok, or CANCELLED for a cancelled one),
// audit.jsonl has exactly one line per call, and no goroutine is left.
func TestManyClientsRandomCancels(t *testing.T) {
	base := runtime.NumGoroutine()
	inst := instancetest.New(t)
	const clients, calls = 12, 40
	rng := rand.New(rand.NewPCG(1, 2))
	type plan struct {
		delayMs  int
		cancelAt time.Duration // 0: not cancelled
	}
	plans := make([][]plan, clients)
	for c := range plans {
		for range calls {
			p := plan{delayMs: rng.IntN(20)}
			if rng.IntN(4) == 0 {
				p.cancelAt = time.Duration(rng.IntN(15)) * time.Millisecond
			}
			plans[c] = append(plans[c], p)
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := client.Dial(context.Background(), inst.SocketPath)
			if err != nil {
				errs <- err
				return
			}
			defer cl.Close()
			var cw sync.WaitGroup
			for i, p := range plans[c] {
				cw.Add(1)
				go func() {
					defer cw.Done()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if p.cancelAt > 0 {
						time.AfterFunc(p.cancelAt, cancel)
					}
					args := fmt.Sprintf(`{"delayMs":%d,"message":"c%d-%d"}`, p.delayMs, c, i)
					res, err := cl.Call(ctx, "app_ping", json.RawMessage(args), client.CallOptions{})
					if err != nil {
						errs <- fmt.Errorf("call c%d-%d: %v", c, i, err)
						return
					}
					switch {
					case res.OK:
					case p.cancelAt > 0 && res.Error.Code == protocol.CodeCancelled:
					default:
						errs <- fmt.Errorf("call c%d-%d (cancel at %v) = %+v", c, i, p.cancelAt, res.Error)
					}
				}()
			}
			cw.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inst.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(inst.UserData, instance.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Each call's message names it. Every call that reached the runtime is
	// audited exactly once; a call cancelled before its frame was sent never
	// reached it, so only those may be missing.
	seen := map[string]int{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e struct{ ArgsSummary string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		var args struct{ Message string }
		json.Unmarshal([]byte(e.ArgsSummary), &args)
		seen[args.Message]++
	}
	missing := 0
	for c := range clients {
		for i, p := range plans[c] {
			name := fmt.Sprintf("c%d-%d", c, i)
			switch n := seen[name]; {
			case n > 1:
				t.Errorf("call %s audited %d times, want once", name, n)
			case n == 0 && p.cancelAt == 0:
				t.Errorf("call %s (not cancelled) is missing from audit.jsonl", name)
			case n == 0:
				missing++
			}
		}
	}
	if len(seen) != clients*calls-missing {
		t.Errorf("audit.jsonl names %d calls, want %d", len(seen), clients*calls-missing)
	}
	t.Logf("%d calls, %d cancelled before they were sent", clients*calls, missing)
	if n := inst.Registry().InFlight(); n != 0 {
		t.Errorf("registry InFlight = %d after every call resolved, want 0", n)
	}
	// Closing the instance ends its goroutines.
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
