package history

import (
	"fmt"
	"strings"
)

// ValidateBranchName checks a branch name by the rules of
// `git check-ref-format --branch`: refs/heads/<name> must be a valid ref
// name, and the name may not start with '-' or be "HEAD". It returns an
// *InvalidBranchNameError saying what is wrong.
func ValidateBranchName(name string) error {
	bad := func(reason string) error { return &InvalidBranchNameError{Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("it is empty")
	case strings.HasPrefix(name, "-"):
		return bad("it starts with '-'")
	case name == "HEAD":
		return bad("HEAD is reserved")
	case strings.HasSuffix(name, "."):
		return bad("it ends with '.'")
	}
	for i, component := range strings.Split(name, "/") {
		if component == "" {
			if i == 0 {
				return bad("it starts with '/'")
			}
			return bad("it has an empty path component (a leading, trailing or double '/')")
		}
		if component[0] == '.' {
			return bad(fmt.Sprintf("the component %q starts with '.'", component))
		}
		if strings.HasSuffix(component, ".lock") {
			return bad(fmt.Sprintf("the component %q ends with \".lock\"", component))
		}
		var last byte
		for j := 0; j < len(component); j++ {
			c := component[j]
			switch {
			case c < 0x20 || c == 0x7f:
				return bad("it contains a control character")
			case c == ' ':
				return bad("it contains a space")
			case strings.IndexByte("~^:?*[\\", c) >= 0:
				return bad(fmt.Sprintf("it contains %q", c))
			case c == '.' && last == '.':
				return bad("it contains \"..\"")
			case c == '{' && last == '@':
				return bad("it contains \"@{\"")
			}
			last = c
		}
	}
	return nil
}
