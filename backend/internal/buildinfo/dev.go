//go:build !production

package buildinfo

// devSuffix marks a development build's version.
const devSuffix = "-dev"
