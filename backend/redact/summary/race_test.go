//go:build race

package summary

// The race detector slows the corpus comparisons ten times: they run on a
// tenth of their corpora (the full ones run without -race).
func init() { corpusScale = 10 }
