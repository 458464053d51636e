//go:build !linux && !darwin

package repo

import "os"

// sysStat has no system stat data to offer on this platform: git for
// Windows records the modification time for ctime too, which FillStat
// does without it.
func sysStat(os.FileInfo) (statData, bool) { return statData{}, false }
