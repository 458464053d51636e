package protocol

// ProtocolVersion is the only wire protocol version this runtime speaks.
// Frames that carry another value are refused with PROTOCOL_ERROR.
const ProtocolVersion = 1

// MaxFrameBytes caps one NDJSON frame, newline excluded (8 MiB). A longer
// frame is reported as a PROTOCOL_ERROR and discarded up to the next newline.
const MaxFrameBytes = 8 * 1024 * 1024

// DefaultToolTimeoutMs is the timeout of a tool call when neither the call
// nor the tool definition sets one.
// The timeout is an idle timeout: every event a running tool emits
// (progress, partial text, a log line) restarts it.
const DefaultToolTimeoutMs = 30_000

// MaxToolTimeoutMs is the hard cap of a call whose events keep extending its
// timeout (one hour), unless the tool sets its own.
const MaxToolTimeoutMs = 3_600_000
