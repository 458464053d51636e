// Package socket serves the tool registry over the local NDJSON unix socket
// that the meith CLI and plugins talk to (see docs/TOOL_PROTOCOL.md).
//
// The socket is a local but untrusted boundary, so the server:
//
//   - creates the socket's directory 0700 and the socket itself under umask
//     0177, so it is 0600 from birth;
//   - never steals a live socket: an existing path is dialed first, and only
//     a stale file (connection refused) is replaced;
//   - reads each peer's uid and pid with SO_PEERCRED and refuses peers of
//     another uid;
//   - assigns every connection its own "socket:<uuid>" session id, replacing
//     any sessionId the client sends;
//   - honours only the cli and plugin caller claims and downgrades
//     renderer, agent and internal claims to cli.
//
// Each connection may run many calls at once. A call gets its own context,
// cancelled by a cancel_tool_call frame with its requestId (handled ahead of
// the queue, in the read loop), by the connection closing, or by
// [Server.Close]. Every tool_call is answered by zero or more tool_event
// frames and exactly one tool_result frame, unless it is refused as a
// transport error (duplicate requestId) or the connection is lost.
package socket
