// Command pngshrink rewrites screenshots of text as 8-bit paletted PNGs:
// the 256 most used colours, every other pixel mapped to the nearest of
// them (only the anti-aliased edges of glyphs change, by a shade). A
// terminal picture shrinks to about a third, so docs/img stays small.
//
//	pngshrink docs/img/*.png
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"sort"
)

func main() {
	for _, p := range os.Args[1:] {
		if err := shrink(p); err != nil {
			fmt.Fprintln(os.Stderr, "pngshrink:", p+":", err)
			os.Exit(1)
		}
	}
}

func shrink(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		return err
	}
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[rgba(img.At(x, y))]++
		}
	}
	cs := make([]color.RGBA, 0, len(count))
	for c := range count {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if count[cs[i]] != count[cs[j]] {
			return count[cs[i]] > count[cs[j]]
		}
		return less(cs[i], cs[j])
	})
	if len(cs) > 256 {
		cs = cs[:256]
	}
	pal := make(color.Palette, len(cs))
	for i, c := range cs {
		pal[i] = c
	}
	out := image.NewPaletted(b, pal)
	near := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := rgba(img.At(x, y))
			i, ok := near[c]
			if !ok {
				i = uint8(pal.Index(c))
				near[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	tmp := path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(w, out); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func less(a, b color.RGBA) bool {
	if a.R != b.R {
		return a.R < b.R
	}
	if a.G != b.G {
		return a.G < b.G
	}
	return a.B < b.B
}
