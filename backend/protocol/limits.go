package protocol

// ProtocolVersion is the only wire protocol version this runtime speaks.
// Frames that carry another value are refused with PROTOCOL_ERROR.
const ProtocolVersion = 1

// MaxFrameBytes caps one NDJSON frame, newline excluded (8 MiB). A longer
// frame is reported as a PROTOCOL_ERROR and discarded up to the next newline.
const MaxFrameBytes = 8 * 1024 * 1024

// DefaultToolTimeoutMs is the timeout of a tool call when neither the call
// nor the tool definition sets one.
const DefaultToolTimeoutMs = 30_000
