// Package instancetest starts a real, in-process meith runtime for tests:
// the same registry, tools, permission service, audit log and unix socket as
// `meith serve`, under short temporary MEITH_HOME and MEITH_USER_DATA dirs.
package instancetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/protocol"
)

// Instance is a started runtime and the paths a client needs.
type Instance struct {
	*instance.Instance
	Home       string
	UserData   string
	SocketPath string
}

// Option changes the instance's config before it starts.
type Option func(*instance.Config)

// WithGrantCLI sets the operator policy (meith serve --grant-cli).
func WithGrantCLI(caps ...protocol.Capability) Option {
	return func(c *instance.Config) { c.GrantCLI = caps }
}

// WithApprovalUI makes privileged CLI calls wait for a decision through
// Approvals, as in the desktop app (the test plays the window).
func WithApprovalUI() Option { return func(c *instance.Config) { c.ApprovalUI = true } }

// WithLabel sets the instance label.
func WithLabel(label string) Option { return func(c *instance.Config) { c.Label = label } }

// WithApprovalTimeout sets how long CLI calls wait for a decision.
func WithApprovalTimeout(d time.Duration) Option {
	return func(c *instance.Config) { c.ApprovalTimeout = d }
}

// New starts an instance and stops it when the test ends. Its directories
// live under a short temp dir so the socket path fits sun_path.
func New(t testing.TB, opts ...Option) *Instance {
	t.Helper()
	root, err := os.MkdirTemp("", "mt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	cfg := instance.Config{Home: filepath.Join(root, "h"), UserData: filepath.Join(root, "u"), AppPath: os.Args[0]}
	for _, o := range opts {
		o(&cfg)
	}
	inst, err := instance.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Start(context.Background()); err != nil {
		inst.Close(context.Background())
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Errorf("close instance: %v", err)
		}
	})
	return &Instance{Instance: inst, Home: cfg.Home, UserData: cfg.UserData, SocketPath: inst.SocketPath()}
}

// Env returns MEITH_HOME and MEITH_USER_DATA settings for a client process.
func (i *Instance) Env() []string {
	return []string{"MEITH_HOME=" + i.Home, "MEITH_USER_DATA=" + i.UserData}
}
