package socket

import "github.com/meith-dev/meith/backend/discovery"

// MaxPathLen is the longest socket path that fits in sun_path (108 bytes,
// one of them the terminating NUL).
const MaxPathLen = discovery.MaxSocketPathLen

// SocketName is the file name of the socket inside the user data directory.
const SocketName = discovery.SocketName

// PathFor returns the socket path for a user data directory; see
// [discovery.SocketPath], which the CLI uses to find the same path.
func PathFor(userData string) string { return discovery.SocketPath(userData) }
