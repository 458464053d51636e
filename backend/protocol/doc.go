// Package protocol is the vocabulary shared by every part of meith: the NDJSON
// wire frames of the tool socket, the ToolResult envelope, error codes,
// capabilities, caller identity and the protocol limits.
//
// It is a leaf package: it imports only the standard library, so the socket
// server, the Go client, the CLI, the Wails binding and the tools can all
// share it without import cycles. See docs/TOOL_PROTOCOL.md in the repository
// for the contract this package implements.
package protocol
