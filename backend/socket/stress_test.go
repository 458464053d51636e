package socket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestStress runs 16 raw connections × 50 calls of assorted tools against
// one server, with random cancels and random abrupt disconnects. Every
// surviving connection must get exactly one tool_result per call and no
// frame after it; every call the server dispatched must be audited exactly
// once; after Close, no handler and no goroutine may be left.
func TestStress(t *testing.T) {
	const (
		clients = 16
		calls   = 50
	)
	baseline := runtime.NumGoroutine()
	f := newFixture(t)
	s, err := Listen(context.Background(), Options{Path: shortDir(t) + "/" + discovery.SocketName, Registry: f.reg})
	if err != nil {
		t.Fatal(err)
	}

	type report struct {
		survived bool
		ids      []string
	}
	reports := make(chan report, clients)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			survived, ids, err := stressClient(s.Path(), w, calls, rng)
			if err != nil {
				t.Errorf("client %d: %v", w, err)
			}
			reports <- report{survived, ids}
		}()
	}
	wg.Wait()
	close(reports)

	survivors, surviving := 0, []string{}
	for r := range reports {
		if r.survived {
			survivors++
			surviving = append(surviving, r.ids...)
		}
	}
	t.Logf("%d of %d connections survived; %d calls dispatched", survivors, clients, s.dispatched.Load())
	if survivors == 0 || survivors == clients {
		t.Errorf("survivors = %d; the random disconnects should leave some but not all", survivors)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := f.reg.WaitIdle(ctx); err != nil {
		t.Fatalf("registry not idle: %v (InFlight %d)", err, f.reg.InFlight())
	}
	if got, want := f.auditsAll.Load(), s.dispatched.Load(); got != want {
		t.Errorf("audit outcomes = %d, dispatched calls = %d; want equal", got, want)
	}
	f.auditMu.Lock()
	for id, n := range f.audits {
		if n != 1 {
			t.Errorf("call %s audited %d times", id, n)
		}
	}
	for _, id := range surviving {
		if f.audits[id] != 1 {
			t.Errorf("surviving call %s audited %d times, want 1", id, f.audits[id])
		}
	}
	f.auditMu.Unlock()

	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutine leak: %d now, %d before\n%s", runtime.NumGoroutine(), baseline,
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stressClient drives one raw connection. It returns whether it stayed
// connected to the end and the requestIds it sent.
func stressClient(path string, w, calls int, rng *rand.Rand) (bool, []string, error) {
	nc, err := net.Dial("unix", path)
	if err != nil {
		return false, nil, err
	}
	defer nc.Close()
	disconnectAt := -1
	if rng.IntN(3) == 0 {
		disconnectAt = rng.IntN(calls)
	}

	type state struct {
		results int
		late    int // frames after the result
	}
	var mu sync.Mutex
	seen := map[string]*state{}
	var stray []string
	readErr := make(chan error, 1)
	go func() {
		r := protocol.NewReader(nc)
		for {
			msg, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
					err = nil
				}
				readErr <- err
				return
			}
			mu.Lock()
			switch m := msg.(type) {
			case *protocol.ToolResultFrame:
				if st := seen[m.RequestID]; st != nil {
					if st.results > 0 {
						st.late++
					}
					st.results++
				} else {
					stray = append(stray, m.RequestID)
				}
			case *protocol.ToolEvent:
				if st := seen[m.RequestID]; st != nil && st.results > 0 {
					st.late++
				}
			default:
				b, _ := json.Marshal(msg)
				stray = append(stray, string(b))
			}
			mu.Unlock()
		}
	}()

	send := func(frame string) error {
		_, err := nc.Write([]byte(frame + "\n"))
		return err
	}
	var ids []string
	for i := range calls {
		if i == disconnectAt {
			return false, ids, nil // abrupt: calls still in flight
		}
		id := fmt.Sprintf("req_w%02d_%03d", w, i)
		var frame string
		cancelLater := false
		switch rng.IntN(7) {
		case 0:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"echo","arguments":{"text":"%d"}}`, id, i)
		case 1:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"progress"}`, id)
		case 2:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"sleep","arguments":{"ms":%d}}`, id, rng.IntN(5))
		case 3:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"block","timeoutMs":%d}`, id, 5+rng.IntN(30))
		case 4:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"block"}`, id)
			cancelLater = true
		case 5:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"sleep","arguments":{"ms":%d}}`, id, 1+rng.IntN(10))
			cancelLater = rng.IntN(2) == 0
		case 6:
			frame = fmt.Sprintf(`{"type":"tool_call","requestId":%q,"toolName":"no_such_tool"}`, id)
		}
		mu.Lock()
		seen[id] = &state{}
		mu.Unlock()
		ids = append(ids, id)
		if err := send(frame); err != nil {
			return false, ids, err
		}
		if cancelLater {
			delay := time.Duration(rng.IntN(3)) * time.Millisecond
			go func() {
				time.Sleep(delay)
				_ = send(fmt.Sprintf(`{"type":"cancel_tool_call","requestId":%q}`, id))
			}()
		}
		if rng.IntN(4) == 0 {
			// A cancel of an unknown id is ignored.
			_ = send(`{"type":"cancel_tool_call","requestId":"req_nobody"}`)
		}
	}

	// Survivor: wait for every result.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		done := 0
		for _, st := range seen {
			if st.results > 0 {
				done++
			}
		}
		mu.Unlock()
		if done == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			return true, ids, fmt.Errorf("only %d of %d results arrived", done, len(ids))
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let any duplicate show up
	_ = nc.(*net.UnixConn).CloseWrite()
	if err := <-readErr; err != nil {
		return true, ids, fmt.Errorf("read: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for id, st := range seen {
		if st.results != 1 || st.late != 0 {
			return true, ids, fmt.Errorf("call %s: %d results, %d frames after its result", id, st.results, st.late)
		}
	}
	if len(stray) > 0 {
		return true, ids, fmt.Errorf("unexpected frames: %q", stray)
	}
	return true, ids, nil
}
