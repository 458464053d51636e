//go:build !unix

package repo

// mapFile does not map here: files are read in pages.
func mapFile(*RegularFile, int64) ([]byte, error) { return nil, nil }

func unmapFile([]byte) {}
