#!/usr/bin/env bash
# Agent path (issue 8, point 10): the latency an agent's tool call through
# the per-session MCP bridge adds over the same call on the socket, and the
# memory of 10 idle sessions. Both measured by bench/cmd/agentbench against
# the scripted ACP agent (a real ACP + MCP client, no model).
#
#   bash bench/agent.sh [CALLS] [SESSIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bin
go build -o build/bin/scriptagent ./backend/agent/testdata/scriptagent
go run ./bench/cmd/agentbench -agent build/bin/scriptagent -n "${1:-2000}" -sessions "${2:-10}"
