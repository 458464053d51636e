package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
)

// iconSizes are the hicolor sizes the package installs.
var iconSizes = []int{16, 32, 48, 64, 128, 256, 512}

// maxIconBytes bounds the icon file mkdeb reads.
const maxIconBytes = 8 << 20

// decodeIcon reads a square PNG of at least minSide pixels from r.
func decodeIcon(r io.Reader, minSide int) (image.Image, error) {
	img, err := png.Decode(io.LimitReader(r, maxIconBytes))
	if err != nil {
		return nil, fmt.Errorf("decode the icon as PNG: %w", err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() {
		return nil, fmt.Errorf("the icon is %dx%d pixels; it must be square", b.Dx(), b.Dy())
	}
	if b.Dx() < minSide {
		return nil, fmt.Errorf("the icon is %d pixels wide; it must be at least %d (icons are scaled down, never up)", b.Dx(), minSide)
	}
	return img, nil
}

// scaleIcon scales the square src to size×size by averaging every source
// pixel a target pixel covers (area weights, in premultiplied alpha, so a
// transparent border does not darken the edges). It never scales up.
func scaleIcon(src image.Image, size int) *image.NRGBA {
	rgba := image.NewRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(rgba, rgba.Bounds(), src, src.Bounds().Min, draw.Src) // premultiplied
	n := rgba.Bounds().Dx()
	dst := image.NewNRGBA(image.Rect(0, 0, size, size))
	scale := float64(n) / float64(size)
	for y := 0; y < size; y++ {
		y0, y1 := float64(y)*scale, float64(y+1)*scale
		for x := 0; x < size; x++ {
			x0, x1 := float64(x)*scale, float64(x+1)*scale
			var r, g, b, a, total float64
			for sy := int(y0); float64(sy) < y1 && sy < n; sy++ {
				wy := min(y1, float64(sy+1)) - max(y0, float64(sy))
				for sx := int(x0); float64(sx) < x1 && sx < n; sx++ {
					w := wy * (min(x1, float64(sx+1)) - max(x0, float64(sx)))
					c := rgba.RGBAAt(sx, sy)
					r += w * float64(c.R)
					g += w * float64(c.G)
					b += w * float64(c.B)
					a += w * float64(c.A)
					total += w
				}
			}
			r, g, b, a = r/total, g/total, b/total, a/total
			dst.SetNRGBA(x, y, unpremultiply(r, g, b, a))
		}
	}
	return dst
}

// unpremultiply turns premultiplied channel averages into a straight-alpha
// color, rounded.
func unpremultiply(r, g, b, a float64) color.NRGBA {
	if a < 0.5 {
		return color.NRGBA{}
	}
	ch := func(v float64) uint8 { return uint8(min(255, v*255/a+0.5)) }
	return color.NRGBA{R: ch(r), G: ch(g), B: ch(b), A: uint8(a + 0.5)}
}
