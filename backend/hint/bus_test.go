package hint

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// inbox records what a subscriber received.
type inbox struct {
	mu   sync.Mutex
	got  []Payload
	wake chan struct{}
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

func (in *inbox) add(p Payload) {
	in.mu.Lock()
	in.got = append(in.got, p)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *inbox) all() []Payload {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.got)
}

// waitLen waits until n hints arrived (failing after 10 s: the bus is
// broken, not slow).
func (in *inbox) waitLen(t *testing.T, n int) []Payload {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got := in.all(); len(got) >= n {
			return got
		}
		select {
		case <-in.wake:
		case <-deadline:
			t.Fatalf("got %d hints, want %d: %v", len(in.all()), n, in.all())
		}
	}
}

func flush(t *testing.T, b *Bus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func newBus(t *testing.T) *Bus {
	b := New()
	t.Cleanup(b.Close)
	return b
}

func TestPayloadsAreSmallJSONOfTheirTopic(t *testing.T) {
	for _, tc := range []struct {
		p     Payload
		topic string
		json  string
	}{
		{StateChanged{Kind: "settings", IDs: []string{}}, "state_changed", `{"kind":"settings","ids":[]}`},
		{ApprovalsChanged{Kind: "pending", ID: "appr_1", Pending: 1}, "approvals_changed", `{"kind":"pending","id":"appr_1","pending":1}`},
		{LogsAppended{Count: 50}, "logs_appended", `{"count":50}`},
		{AuditAppended{Count: 3}, "audit", `{"count":3}`},
		{GitChanged{Root: "/repo", Count: 1}, "git_changed", `{"root":"/repo","count":1}`},
		{ProcessChanged{Kind: "dev-server", ID: "dev_1"}, "process_changed", `{"kind":"dev-server","id":"dev_1"}`},
		{AgentChanged{SessionID: "sess_1", Kind: "transcript"}, "agent_changed", `{"sessionId":"sess_1","kind":"transcript"}`},
		{NewFilesChanged("/ws", []string{"a.txt"}), "files_changed", `{"root":"/ws","paths":["a.txt"],"count":1}`},
	} {
		b, err := json.Marshal(tc.p)
		if err != nil || string(b) != tc.json || tc.p.Topic() != tc.topic {
			t.Errorf("%T: topic %q, JSON %s (%v); want %q, %s", tc.p, tc.p.Topic(), b, err, tc.topic, tc.json)
		}
	}
}

func TestHintsArriveInOrderToEverySubscriber(t *testing.T) {
	b := newBus(t)
	first, second := newInbox(), newInbox()
	b.Subscribe(first.add)
	b.Subscribe(second.add)
	var want []Payload
	for i := range 200 {
		var p Payload = StateChanged{Kind: "tabs", IDs: []string{fmt.Sprint(i)}}
		if i%3 == 0 {
			p = GitChanged{Root: "/repo", Count: i}
		}
		b.Publish(p)
		want = append(want, p)
	}
	flush(t, b)
	for name, in := range map[string]*inbox{"first": first, "second": second} {
		got := in.all()
		if len(got) != len(want) {
			t.Fatalf("%s subscriber got %d hints, want %d", name, len(got), len(want))
		}
		for i := range want {
			if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
				t.Fatalf("%s subscriber: hint %d = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
}

func TestSubscribeToSomeTopics(t *testing.T) {
	b := newBus(t)
	git := newInbox()
	b.Subscribe(git.add, TopicGit)
	b.Publish(StateChanged{Kind: "settings", IDs: []string{}})
	b.Publish(GitChanged{Root: "/repo", Count: 2})
	b.Publish(ApprovalsChanged{Kind: "pending", ID: "appr_1", Pending: 1})
	flush(t, b)
	if got := git.all(); len(got) != 1 || got[0] != (GitChanged{Root: "/repo", Count: 2}) {
		t.Errorf("a git subscriber got %v", got)
	}
}

func TestGatheredTopics(t *testing.T) {
	type burst []Payload
	repeat := func(n int, p Payload) burst {
		out := make(burst, n)
		for i := range out {
			out[i] = p
		}
		return out
	}
	distinct := func(n int, mk func(i int) Payload) burst {
		out := make(burst, n)
		for i := range out {
			out[i] = mk(i)
		}
		return out
	}
	dev := func(i int) Payload { return ProcessChanged{Kind: "dev-server", ID: fmt.Sprintf("dev_%d", i)} }
	sess := func(i int) Payload { return AgentChanged{SessionID: fmt.Sprintf("sess_%d", i), Kind: "sessions"} }
	for _, tc := range []struct {
		name  string
		burst burst
		want  []Payload
	}{
		{"log appends add up", repeat(50, LogsAppended{Count: 1}), []Payload{LogsAppended{Count: 50}}},
		{"one log append", burst{LogsAppended{Count: 1}}, []Payload{LogsAppended{Count: 1}}},
		{"audit appends add up", repeat(20, AuditAppended{Count: 2}), []Payload{AuditAppended{Count: 40}}},
		{"each process once, in order",
			slices.Concat(repeat(5, ProcessChanged{"dev-server", "dev_1"}), repeat(5, ProcessChanged{"terminal", "term_1"}), burst{ProcessChanged{"dev-server", "dev_1"}}),
			[]Payload{ProcessChanged{"dev-server", "dev_1"}, ProcessChanged{"terminal", "term_1"}}},
		{"as many processes as the maximum", distinct(MaxProcessHints, dev), distinct(MaxProcessHints, dev)},
		{"more processes than the maximum", distinct(MaxProcessHints+3, dev), []Payload{ProcessChanged{}}},
		{"a streaming answer", append(repeat(50, AgentChanged{"sess_1", "transcript"}), AgentChanged{"sess_1", "permission"}),
			[]Payload{AgentChanged{"sess_1", "transcript"}, AgentChanged{"sess_1", "permission"}}},
		{"more sessions than the maximum", distinct(MaxAgentHints+5, sess), []Payload{AgentChanged{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBus(t)
			in := newInbox()
			b.Subscribe(in.add)
			for _, p := range tc.burst {
				b.Publish(p)
			}
			flush(t, b) // ends the window now
			if got := in.all(); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			// The next window starts afresh.
			b.Publish(tc.burst[0])
			flush(t, b)
			if got := in.all(); len(got) != len(tc.want)+1 || got[len(got)-1] != tc.burst[0] {
				t.Errorf("after the window: got %v, want one more %v", got, tc.burst[0])
			}
		})
	}
}

// TestFilesChangedGatheredPerRoot: the file hints of one window go out
// once per root, their paths joined (each once), or as a count past the
// maximum.
func TestFilesChangedGatheredPerRoot(t *testing.T) {
	many := make([]string, MaxFilesHintPaths+1)
	for i := range many {
		many[i] = fmt.Sprintf("f%d", i)
	}
	for _, tc := range []struct {
		name  string
		burst []FilesChanged
		want  string
	}{
		{"one root", []FilesChanged{NewFilesChanged("/a", []string{"x"}), NewFilesChanged("/a", []string{"y", "x"})},
			`[{"root":"/a","paths":["x","y"],"count":2}]`},
		{"two roots, in the order they came", []FilesChanged{NewFilesChanged("/b", []string{"x"}), NewFilesChanged("/a", []string{"x"}), NewFilesChanged("/b", []string{"z"})},
			`[{"root":"/b","paths":["x","z"],"count":2},{"root":"/a","paths":["x"],"count":1}]`},
		{"past the maximum at once", []FilesChanged{NewFilesChanged("/a", many)},
			fmt.Sprintf(`[{"root":"/a","paths":[],"count":%d}]`, len(many))},
		{"past the maximum joined", []FilesChanged{NewFilesChanged("/a", many[:40]), NewFilesChanged("/a", many[20:])},
			fmt.Sprintf(`[{"root":"/a","paths":[],"count":%d}]`, len(many))},
		{"many, then one more", []FilesChanged{NewFilesChanged("/a", many), NewFilesChanged("/a", []string{"x"})},
			fmt.Sprintf(`[{"root":"/a","paths":[],"count":%d}]`, len(many)+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBus(t)
			in := newInbox()
			b.Subscribe(in.add, TopicFiles)
			for _, p := range tc.burst {
				b.Publish(p)
			}
			flush(t, b)
			got, _ := json.Marshal(in.all())
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	// Without Flush the window's timer sends it.
	b := newBus(t)
	in := newInbox()
	b.Subscribe(in.add)
	b.Publish(NewFilesChanged("/a", []string{"x"}))
	if got := in.waitLen(t, 1); got[0].Topic() != TopicFiles {
		t.Errorf("got %v", got)
	}
}

func TestGatheredHintsGoOutWhenTheWindowEnds(t *testing.T) {
	b := newBus(t)
	in := newInbox()
	b.Subscribe(in.add)
	b.Publish(ProcessChanged{Kind: "terminal", ID: "term_1"})
	b.Publish(LogsAppended{Count: 1})
	b.Publish(AgentChanged{SessionID: "sess_1", Kind: "sessions"})
	got := in.waitLen(t, 3) // no Flush: the windows' timers send them
	for _, want := range []Payload{ProcessChanged{"terminal", "term_1"}, LogsAppended{1}, AgentChanged{"sess_1", "sessions"}} {
		if !slices.Contains(got, want) {
			t.Errorf("got %v, want %v among them", got, want)
		}
	}
}

func TestFlushSendsOpenWindowsInTheOrderTheyOpened(t *testing.T) {
	b := newBus(t)
	in := newInbox()
	b.Subscribe(in.add)
	b.Publish(AgentChanged{SessionID: "sess_1", Kind: "sessions"})
	b.Publish(LogsAppended{Count: 1})
	b.Publish(ProcessChanged{Kind: "terminal", ID: "term_1"})
	b.Publish(LogsAppended{Count: 2})
	flush(t, b)
	want := []Payload{AgentChanged{"sess_1", "sessions"}, LogsAppended{3}, ProcessChanged{"terminal", "term_1"}}
	if got := in.all(); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestWithoutSubscribersHintsAreDropped(t *testing.T) {
	b := newBus(t)
	b.Publish(ProcessChanged{Kind: "dev-server", ID: "dev_early"}) // nobody listens: not gathered either
	b.Publish(StateChanged{Kind: "settings", IDs: []string{}})
	in := newInbox()
	b.Subscribe(in.add)
	b.Publish(ProcessChanged{Kind: "dev-server", ID: "dev_1"})
	flush(t, b)
	if got := in.all(); !slices.Equal(got, []Payload{ProcessChanged{"dev-server", "dev_1"}}) {
		t.Errorf("got %v, want only the hint published after Subscribe", got)
	}
}

func TestUnsubscribe(t *testing.T) {
	b := newBus(t)
	gone, stays := newInbox(), newInbox()
	cancel := b.Subscribe(gone.add)
	b.Subscribe(stays.add)
	b.Publish(GitChanged{Root: "/a", Count: 1})
	b.Publish(ProcessChanged{Kind: "terminal", ID: "term_1"}) // in the open window at cancel
	flush(t, b)
	b.Publish(ProcessChanged{Kind: "terminal", ID: "term_2"})
	cancel()
	cancel() // idempotent
	b.Publish(GitChanged{Root: "/b", Count: 1})
	flush(t, b)
	if got := gone.all(); !slices.Equal(got, []Payload{GitChanged{"/a", 1}, ProcessChanged{"terminal", "term_1"}}) {
		t.Errorf("cancelled subscriber got %v", got)
	}
	if got := stays.all(); len(got) != 4 {
		t.Errorf("the other subscriber got %v, want 4 hints", got)
	}

	// A subscriber may cancel itself from its own function.
	var once sync.Once
	self := newInbox()
	var stop func()
	stop = b.Subscribe(func(p Payload) {
		self.add(p)
		once.Do(stop)
	})
	b.Publish(GitChanged{Root: "/c", Count: 1})
	self.waitLen(t, 1)
	b.Publish(GitChanged{Root: "/d", Count: 1})
	flush(t, b)
	if got := self.all(); len(got) != 1 {
		t.Errorf("a subscriber that cancelled itself got %v", got)
	}
}

func TestSlowSubscriberDoesNotBlockPublishers(t *testing.T) {
	b := newBus(t)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before Close, should the test fail
	entered := make(chan struct{}, 1)
	slow := newInbox()
	b.Subscribe(func(p Payload) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		slow.add(p)
	})
	fast := newInbox()
	b.Subscribe(fast.add)

	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := range 100 {
			b.Publish(GitChanged{Root: "/repo", Count: i})
		}
	}()
	select {
	case <-published:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish waited for a subscriber that does not return")
	}
	<-entered // the slow subscriber holds the first hint
	if got := fast.waitLen(t, 100); got[99] != (GitChanged{"/repo", 99}) {
		t.Errorf("the fast subscriber's last hint = %v", got[99])
	}
	// Flush waits for the slow one, but gives up with ctx.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Flush(ctx); err != context.Canceled {
		t.Errorf("Flush with a cancelled context while a subscriber is stuck = %v", err)
	}
	free()
	got := slow.waitLen(t, 100)
	for i, p := range got {
		if p != (GitChanged{"/repo", i}) {
			t.Fatalf("slow subscriber: hint %d = %v", i, p)
		}
	}
}

func TestASubscriberFarBehindLosesItsOldestHints(t *testing.T) {
	b := newBus(t)
	release := make(chan struct{})
	entered := make(chan struct{})
	in := newInbox()
	var once sync.Once
	b.Subscribe(func(p Payload) {
		once.Do(func() { close(entered); <-release })
		in.add(p)
	})
	b.Publish(GitChanged{Root: "/repo", Count: 0})
	<-entered // hint 0 is taken; the queue is empty
	const extra = 5
	for i := 1; i <= MaxQueued+extra; i++ {
		b.Publish(GitChanged{Root: "/repo", Count: i})
	}
	if n := b.Dropped(); n != extra {
		t.Errorf("Dropped = %d, want %d", n, extra)
	}
	close(release)
	flush(t, b)
	got := in.all()
	if len(got) != 1+MaxQueued || got[0] != (GitChanged{"/repo", 0}) || got[1] != (GitChanged{"/repo", 1 + extra}) ||
		got[len(got)-1] != (GitChanged{"/repo", MaxQueued + extra}) {
		t.Errorf("got %d hints, %v … %v; want hint 0, then %d to %d", len(got), got[:2], got[len(got)-1], 1+extra, MaxQueued+extra)
	}
}

func TestClose(t *testing.T) {
	b := New()
	in := newInbox()
	b.Subscribe(in.add)
	b.Publish(ProcessChanged{Kind: "terminal", ID: "term_1"}) // gathered, not sent yet
	b.Close()
	b.Close() // idempotent
	b.Publish(GitChanged{Root: "/repo", Count: 1})
	late := newInbox()
	b.Subscribe(late.add)()
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := append(in.all(), late.all()...); len(got) != 0 {
		t.Errorf("after Close: %v", got)
	}
}

func TestNilBus(t *testing.T) {
	var b *Bus
	b.Publish(GitChanged{Root: "/repo", Count: 1})
	b.Subscribe(func(Payload) { t.Error("a nil bus delivered a hint") })()
	if err := b.Flush(context.Background()); err != nil || b.Dropped() != 0 {
		t.Errorf("nil bus: Flush = %v, Dropped = %d", err, b.Dropped())
	}
	b.Close()
}
