package repo

import (
	"errors"
	"fmt"
	"testing"
)

func TestArgumentAndUnmergedErrors(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		want          string
		arg, unmerged bool
	}{
		{"argument with field", &ArgumentError{Field: "limit", Reason: "must be between 1 and 200"}, "limit must be between 1 and 200", true, false},
		{"argument without field", &ArgumentError{Reason: "at least one path is required"}, "at least one path is required", true, false},
		{"wrapped argument", fmt.Errorf("compare: %w", &ArgumentError{Reason: "left is required"}), "compare: left is required", true, false},
		{"whole index", &UnmergedError{Paths: []string{"a.txt", "b/c.txt"}, WholeIndex: true},
			"the index has unresolved merge conflicts in: a.txt, b/c.txt", false, true},
		{"one path", &UnmergedError{Paths: []string{"c2.txt"}}, "path 'c2.txt' is unmerged", false, true},
		{"two paths", &UnmergedError{Paths: []string{"a", "b"}}, "paths 'a', 'b' are unmerged", false, true},
		{"other", errors.New("boom"), "boom", false, false},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
		if got := IsArgumentError(tt.err); got != tt.arg {
			t.Errorf("%s: IsArgumentError = %v, want %v", tt.name, got, tt.arg)
		}
		if got := IsUnmerged(tt.err); got != tt.unmerged {
			t.Errorf("%s: IsUnmerged = %v, want %v", tt.name, got, tt.unmerged)
		}
	}
}
