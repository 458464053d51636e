package cli

import (
	"fmt"

	"github.com/meith-dev/meith/backend/discovery"
)

// TargetSource says how a [Target] was chosen.
type TargetSource string

// The target sources, in resolution order.
const (
	SourceSocket   TargetSource = "socket"   // --socket
	SourceInstance TargetSource = "instance" // --instance <pid|label>
	SourceNewest   TargetSource = "newest"   // the newest live instance
	SourceConfig   TargetSource = "config"   // config.json socketPath
	SourceFallback TargetSource = "fallback" // <user data>/tool.sock
)

// Target is the runtime the CLI talks to.
type Target struct {
	SocketPath string
	Source     TargetSource
	// Instance is the live record the target came from, if any.
	Instance *discovery.Record
}

// ResolveTarget picks the runtime socket (reference §5.1):
//
//  1. socket (--socket), as given;
//  2. instance (--instance), matched by pid or label against the live
//     instances — no match is an error;
//  3. the newest live instance;
//  4. socketPath of MEITH_HOME/config.json;
//  5. MEITH_USER_DATA/tool.sock (with the default user data dir).
//
// Paths come from discovery.ResolvePaths("", ""), so MEITH_HOME and
// MEITH_USER_DATA are honoured. Unreadable or corrupt records and configs are
// skipped.
func ResolveTarget(socket, instance string) (Target, error) {
	if socket != "" {
		return Target{SocketPath: socket, Source: SourceSocket}, nil
	}
	paths, err := discovery.ResolvePaths("", "")
	if err != nil {
		return Target{}, err
	}
	live, _ := discovery.List(paths.InstancesDir) // an unreadable dir has no live instances
	if instance != "" {
		r, ok := discovery.Match(live, instance)
		if !ok {
			return Target{}, fmt.Errorf("No live instance matches %q. Run \"meith app list\" to see running instances.", instance)
		}
		return Target{SocketPath: r.SocketPath, Source: SourceInstance, Instance: &r}, nil
	}
	if len(live) > 0 {
		r := live[0]
		return Target{SocketPath: r.SocketPath, Source: SourceNewest, Instance: &r}, nil
	}
	if cfg, err := discovery.ReadConfig(paths.ConfigFile); err == nil {
		return Target{SocketPath: cfg.SocketPath, Source: SourceConfig}, nil
	}
	return Target{SocketPath: discovery.SocketPath(paths.UserData), Source: SourceFallback}, nil
}
