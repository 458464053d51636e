package protocol

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a fresh identifier of the form "<prefix>_<12 hex digits>"
// (48 random bits), the shape of every meith id: req_, audit_, appr_, log_,
// call_, and the ids of later tool families (btab_, space_, sess_, …).
func NewID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + "_" + hex.EncodeToString(b[:])
}
