// Command printstamp prints buildinfo.Read() as JSON: the buildinfo test
// builds it with the link-time stamps the build scripts set.
package main

import (
	"encoding/json"
	"os"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
)

func main() { _ = json.NewEncoder(os.Stdout).Encode(buildinfo.Read()) }
