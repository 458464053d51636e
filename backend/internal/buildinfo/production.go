//go:build production

package buildinfo

// devSuffix is empty in a production build.
const devSuffix = ""
