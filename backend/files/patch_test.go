package files

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// applyUTF16 is the reference implementation of Apply: it works on the
// UTF-16 code units themselves, as JavaScript would. It returns the field
// of the refused edit ("edits[1].start") on error.
func applyUTF16(text string, edits []Edit) (string, string) {
	u := utf16.Encode([]rune(text))
	n := len(u)
	inPair := func(off int) bool {
		return off > 0 && off < n && utf16.IsSurrogate(rune(u[off-1])) && u[off-1] < 0xDC00 && u[off] >= 0xDC00 && u[off] <= 0xDFFF
	}
	for i, ed := range edits {
		if ed.Start < 0 {
			return "", fmt.Sprintf("edits[%d].start", i)
		}
		if ed.End < ed.Start {
			return "", fmt.Sprintf("edits[%d].end", i)
		}
	}
	for i, ed := range edits {
		if ed.Start > n || inPair(ed.Start) {
			return "", fmt.Sprintf("edits[%d].start", i)
		}
		if ed.End > n || inPair(ed.End) {
			return "", fmt.Sprintf("edits[%d].end", i)
		}
	}
	idx := make([]int, len(edits))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if edits[a].Start != edits[b].Start {
			return edits[a].Start - edits[b].Start
		}
		return edits[a].End - edits[b].End
	})
	for k := 1; k < len(idx); k++ {
		if edits[idx[k-1]].End > edits[idx[k]].Start {
			return "", fmt.Sprintf("edits[%d].start", idx[k])
		}
	}
	var out []uint16
	at := 0
	for _, i := range idx {
		out = append(out, u[at:edits[i].Start]...)
		out = append(out, utf16.Encode([]rune(edits[i].NewText))...)
		at = edits[i].End
	}
	out = append(out, u[at:]...)
	return string(utf16.Decode(out)), ""
}

func TestApply(t *testing.T) {
	const text = "a😀b\ncé" // a, 😀 (2 units), b, \n, c, é: 7 units
	tests := []struct {
		name      string
		edits     []Edit
		want      string
		wantField string
	}{
		{"replace after an emoji", []Edit{{Start: 3, End: 4, NewText: "B"}}, "a😀B\ncé", ""},
		{"replace the emoji", []Edit{{Start: 1, End: 3, NewText: "x"}}, "axb\ncé", ""},
		{"unsorted edits", []Edit{{Start: 6, End: 7, NewText: "e"}, {Start: 0, End: 1, NewText: "A"}}, "A😀b\nce", ""},
		{"insert at the end", []Edit{{Start: 7, End: 7, NewText: "!"}}, text + "!", ""},
		{"two inserts at one offset keep their order", []Edit{{Start: 0, End: 0, NewText: "1"}, {Start: 0, End: 0, NewText: "2"}}, "12" + text, ""},
		{"an insert before a replacement at its start", []Edit{{Start: 4, End: 7, NewText: "X"}, {Start: 4, End: 4, NewText: "<"}}, "a😀b<X", ""},
		{"touching ranges", []Edit{{Start: 0, End: 1, NewText: "1"}, {Start: 1, End: 3, NewText: "2"}}, "12b\ncé", ""},
		{"delete everything", []Edit{{Start: 0, End: 7}}, "", ""},
		{"overlap", []Edit{{Start: 0, End: 4}, {Start: 3, End: 5}}, "", "edits[1].start"},
		{"overlap, given in reverse", []Edit{{Start: 3, End: 5}, {Start: 0, End: 4}}, "", "edits[0].start"},
		{"start past the end", []Edit{{Start: 8, End: 8}}, "", "edits[0].start"},
		{"end past the end", []Edit{{Start: 0, End: 8}}, "", "edits[0].end"},
		{"negative start", []Edit{{Start: -1, End: 0}}, "", "edits[0].start"},
		{"end before start", []Edit{{Start: 3, End: 1}}, "", "edits[0].end"},
		{"start inside a surrogate pair", []Edit{{Start: 2, End: 3}}, "", "edits[0].start"},
		{"end inside a surrogate pair", []Edit{{Start: 0, End: 2}}, "", "edits[0].end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(text, tt.edits)
			ref, refField := applyUTF16(text, tt.edits)
			if tt.wantField != "" {
				var ae *ArgError
				if !errors.As(err, &ae) || ae.Field != tt.wantField || refField != tt.wantField {
					t.Fatalf("Apply = %q, %v (reference: %s); want an ArgError on %s", got, err, refField, tt.wantField)
				}
				return
			}
			if err != nil || got != tt.want || ref != tt.want {
				t.Fatalf("Apply = %q, %v; reference %q; want %q", got, err, ref, tt.want)
			}
		})
	}
}

// alphabet mixes one-, two-, three- and four-byte characters (the last
// two outside the BMP: surrogate pairs in UTF-16).
var alphabet = []rune{'a', 'b', '\n', ' ', 'é', 'ß', '中', '€', '😀', '𝄞'}

// FuzzApply: random edits on random text (with surrogate pairs) never
// panic, are all or nothing, and give what the reference on UTF-16 code
// units gives, or refuse the same edit.
func FuzzApply(f *testing.F) {
	f.Add(uint64(1), uint8(10), uint8(3))
	f.Add(uint64(42), uint8(0), uint8(1))
	f.Add(uint64(7), uint8(40), uint8(8))
	f.Fuzz(func(t *testing.T, seed uint64, textLen, nEdits uint8) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		var sb strings.Builder
		for range int(textLen) {
			sb.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		text := sb.String()
		units := len(utf16.Encode([]rune(text)))
		edits := make([]Edit, int(nEdits)%16)
		for i := range edits {
			a, b := r.IntN(units+3)-1, r.IntN(units+3)-1
			if r.IntN(4) > 0 && a > b { // mostly well-ordered
				a, b = b, a
			}
			var nt strings.Builder
			for range r.IntN(4) {
				nt.WriteRune(alphabet[r.IntN(len(alphabet))])
			}
			edits[i] = Edit{Start: a, End: b, NewText: nt.String()}
		}
		if r.IntN(2) == 0 && len(edits) > 1 { // also try disjoint sorted edits, which mostly apply
			pos := 0
			for i := range edits {
				if pos > units {
					edits = edits[:i]
					break
				}
				a := pos + r.IntN(max(1, (units-pos)/2+1))
				b := a + r.IntN(3)
				edits[i].Start, edits[i].End = a, b
				pos = b
			}
			r.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
		}
		before := slices.Clone(edits)
		got, err := Apply(text, edits)
		want, wantField := applyUTF16(text, edits)
		if !slices.Equal(before, edits) {
			t.Fatalf("Apply changed its edits")
		}
		if wantField != "" {
			var ae *ArgError
			if !errors.As(err, &ae) || ae.Field != wantField || got != "" {
				t.Fatalf("Apply(%q, %v) = %q, %v; the reference refuses %s", text, edits, got, err, wantField)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("Apply(%q, %v) = %q, %v; want %q", text, edits, got, err, want)
		}
	})
}
