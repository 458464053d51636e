package checkpoint

import "errors"

// UnknownCheckpointError says that no checkpoint (or revision) has the
// given name.
type UnknownCheckpointError struct{ ID string }

// Error implements error.
func (e *UnknownCheckpointError) Error() string { return "Unknown checkpoint: " + e.ID }

// IsUnknownCheckpoint reports whether err is an *UnknownCheckpointError.
func IsUnknownCheckpoint(err error) bool {
	var ue *UnknownCheckpointError
	return errors.As(err, &ue)
}

// ArgumentError says that an argument is missing or invalid.
type ArgumentError struct{ Reason string }

// Error implements error.
func (e *ArgumentError) Error() string { return e.Reason }

// IsArgumentError reports whether err is an *ArgumentError.
func IsArgumentError(err error) bool {
	var ae *ArgumentError
	return errors.As(err, &ae)
}
