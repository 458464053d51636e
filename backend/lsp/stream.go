package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageBytes bounds one message a language server sends (its
// Content-Length). A server that announces more is cut off: the
// connection ends and the call fails.
const MaxMessageBytes = 64 << 20

// maxHeaderLine and maxHeaderLines bound a message's header block.
const (
	maxHeaderLine  = 1024
	maxHeaderLines = 16
)

// errMessageTooLarge reports a message over MaxMessageBytes.
var errMessageTooLarge = errors.New("the language server sent a message over 64 MiB")

// pipeStream is the jsonrpc2.Stream over a server's stdio: the LSP base
// protocol (a Content-Length header block, a blank line, the JSON body),
// with every read bounded (header lines, header count, body size) and every
// write bounded in time, so a server that stops reading its stdin cannot
// block a call. The library's own header framer accepts bodies up to 1 GiB;
// this one stops at MaxMessageBytes.
type pipeStream struct {
	in  *bufio.Reader
	out *os.File // the write end of the server's stdin
	r   *os.File // the read end of the server's stdout

	writeTimeout time.Duration
	wmu          sync.Mutex
	closeOnce    sync.Once

	failMu   sync.Mutex
	readFail error // the first read that broke the protocol
}

func newPipeStream(stdout, stdin *os.File, writeTimeout time.Duration) *pipeStream {
	return &pipeStream{in: bufio.NewReaderSize(stdout, 64<<10), out: stdin, r: stdout, writeTimeout: writeTimeout}
}

// Read implements jsonrpc2.Stream.
func (s *pipeStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	length, err := readHeader(s.in)
	if err != nil {
		return nil, 0, s.failed(err)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, 0, s.failed(fmt.Errorf("the language server sent a malformed message: %w", err))
	}
	return msg, int64(length), nil
}

// failed records err as the stream's protocol failure when it is one (not
// the end of the output, nor our own Close) and returns it.
func (s *pipeStream) failed(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) {
		return err
	}
	s.failMu.Lock()
	if s.readFail == nil {
		s.readFail = err
	}
	s.failMu.Unlock()
	return err
}

// protocolFailure is the first message the server sent that broke the
// protocol (too large, malformed), or nil. It explains a failed call
// better than the connection's own error, which may only tell of a write
// that came after.
func (s *pipeStream) protocolFailure() error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.readFail
}

// readHeader reads one header block and returns its Content-Length.
func readHeader(r *bufio.Reader) (int, error) {
	length := -1
	for i := 0; ; i++ {
		if i > maxHeaderLines {
			return 0, errors.New("the language server sent a header block of too many lines")
		}
		line, err := readLine(r)
		if err != nil {
			if i == 0 && errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if len(line) == 0 {
			if length < 0 {
				return 0, errors.New("the language server sent a message without Content-Length")
			}
			return length, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, errors.New("the language server sent a malformed header line")
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and unknown fields
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n <= 0 {
			return 0, errors.New("the language server sent an invalid Content-Length")
		}
		if n > MaxMessageBytes {
			return 0, errMessageTooLarge
		}
		length = int(n)
	}
}

// readLine reads a line of at most maxHeaderLine bytes, without its line
// break ("\r\n", or a bare "\n").
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderLine+2 {
			return nil, errors.New("the language server sent a header line over 1 KiB")
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// Write implements jsonrpc2.Stream: one write of header and body, which
// fails once the write timeout (or ctx's deadline, when sooner) passes.
func (s *pipeStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)

	s.wmu.Lock()
	defer s.wmu.Unlock()
	deadline := time.Now().Add(s.writeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = s.out.SetWriteDeadline(deadline)
	n, err := s.out.Write(frame)
	_ = s.out.SetWriteDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errors.New("the language server stopped reading its input")
	}
	return int64(n), err
}

// Close implements jsonrpc2.Stream: it closes both pipes, which ends a
// read in progress.
func (s *pipeStream) Close() error {
	s.closeOnce.Do(func() {
		_ = s.out.Close()
		_ = s.r.Close()
	})
	return nil
}

// stdCodec encodes payloads with encoding/json (without HTML escaping, as
// the jsonrpc2.Codec contract asks), whose omitempty and field matching the
// message types are written for.
type stdCodec struct{}

// Marshal implements jsonrpc2.Codec.
func (stdCodec) Marshal(v any) ([]byte, error) {
	switch raw := v.(type) {
	case jsonrpc2.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	case json.RawMessage:
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Unmarshal implements jsonrpc2.Codec.
func (stdCodec) Unmarshal(data []byte, v any) error {
	switch dst := v.(type) {
	case *jsonrpc2.RawMessage:
		*dst = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	case *json.RawMessage:
		*dst = append(json.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}
