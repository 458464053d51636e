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
