package patch

import (
	"bytes"
	"compress/zlib"
	"strconv"
)

// base85Alphabet is git's base-85 alphabet (base85.c).
const base85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

// binaryPatch returns the body of a "GIT binary patch" as "git diff
// --binary" writes it: a literal hunk with the new content, then one with
// the old content (for applying in reverse), each zlib-deflated and
// base-85 encoded in lines of at most 52 bytes, and each followed by an
// empty line. meith always writes literals, never deltas; git apply takes
// both.
func binaryPatch(old, new []byte) []byte {
	var b bytes.Buffer
	writeLiteral(&b, new)
	writeLiteral(&b, old)
	return b.Bytes()
}

func writeLiteral(b *bytes.Buffer, content []byte) {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write(content) // writes to a bytes.Buffer do not fail
	w.Close()
	b.WriteString("literal " + strconv.Itoa(len(content)) + "\n")
	data := z.Bytes()
	for len(data) > 0 {
		n := min(len(data), 52)
		if n <= 26 {
			b.WriteByte(byte('A' + n - 1))
		} else {
			b.WriteByte(byte('a' + n - 27))
		}
		encodeBase85(b, data[:n])
		b.WriteByte('\n')
		data = data[n:]
	}
	b.WriteByte('\n')
}

// encodeBase85 writes data as git's base 85: every 4 bytes (the last group
// zero-padded) as 5 digits, most significant first.
func encodeBase85(b *bytes.Buffer, data []byte) {
	for len(data) > 0 {
		var acc uint32
		for i := range 4 {
			acc <<= 8
			if i < len(data) {
				acc |= uint32(data[i])
			}
		}
		var digits [5]byte
		for i := 4; i >= 0; i-- {
			digits[i] = base85Alphabet[acc%85]
			acc /= 85
		}
		b.Write(digits[:])
		data = data[min(4, len(data)):]
	}
}
