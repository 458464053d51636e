//go:build (desktop || dev || production || bindings) && !linux

package app

import (
	"context"
	"errors"
)

// captureWindow is only implemented for GTK (Linux) builds.
func captureWindow(context.Context) ([]byte, error) {
	return nil, errors.New("capture window: not supported on this platform yet")
}
