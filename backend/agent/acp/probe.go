package acp

import (
	"context"
	"errors"
	"strings"
)

func probe(ctx context.Context, command string, args []string, cwd string) ProbeResult {
	cwd = cwdOrDot(cwd)
	s, err := launch(ctx, Spec{Command: command, Args: args, Cwd: cwd})
	if s != nil {
		defer func() { _ = s.close() }()
	}
	if err != nil {
		res := probeFailure(ctx, command, err)
		if s != nil {
			res.Stderr = s.proc.stderrTail()
		}
		return res
	}
	res := ProbeResult{OK: true, Name: s.name, Version: s.version, HTTPMCP: s.httpMCP}
	res.Message = s.display + " is installed and ready."
	if !s.httpMCP {
		res.Message += " It does not advertise HTTP MCP servers, so meith cannot give it its tools and will not run it."
	}
	// A trial session without MCP servers tells which config options
	// (models, reasoning levels) the agent offers; its failure is not the
	// probe's.
	if err := s.newSession(ctx, nil); err != nil {
		s.logf("acp: probe %s: session/new: %v", command, err)
	} else {
		res.Options = s.configOptions()
	}
	return res
}

// probeFailure turns a launch error into a result a person can act on.
func probeFailure(ctx context.Context, command string, err error) ProbeResult {
	res := ProbeResult{}
	msg := err.Error()
	tail := ""
	if i := strings.Index(msg, ": stderr: "); i >= 0 {
		tail = msg[i+len(": stderr: "):]
		msg = msg[:i]
	}
	switch {
	case errors.Is(err, ErrNotInstalled):
		res.Message = strings.TrimPrefix(msg, ErrNotInstalled.Error()+": ")
	case errors.Is(err, ErrExited):
		res.Message = command + " exited before answering initialize"
		if tail != "" {
			res.Message += ": " + lastLine(tail)
		} else {
			res.Message += "."
		}
	case ctx.Err() != nil:
		res.Message = command + " did not answer initialize in time (npx may still be downloading the adapter; try again)."
	default:
		res.Message = strings.TrimPrefix(msg, "acp: ")
	}
	return res
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
