// Command printversion prints buildinfo.Version: the buildinfo test builds it
// with the production tag, as the release build does.
package main

import (
	"fmt"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
)

func main() { fmt.Print(buildinfo.Version) }
