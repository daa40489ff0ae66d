// Command gentemplates renders the OCR-B glyph templates that mrzread
// embeds (go generate in mrzread runs it). It needs the OCR-B font of the
// Debian package fonts-ocr-b; the generated file does not, so production
// binaries need no font at run time.
//
// The OCR-B font of fonts-ocr-b is Matthew Skala's 2012 METAFONT rendition,
// which he released to the public domain (its glyph sources are based on
// Norbert Schwarz's OCR-B METAFONT files, under a permissive licence: "You
// may freely use, modify and/or distribute this file, without limitation";
// see /usr/share/doc/fonts-ocr-b/copyright). The templates are renderings of
// those glyphs.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"

	"golang.org/x/image/vector"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

const ss = 8 // supersampling per axis

func main() {
	out := flag.String("o", "templates.bin", "output file")
	preview := flag.String("preview", "", "also write a PNG contact sheet here")
	flag.Parse()
	f, err := docgen.OCRB()
	if err != nil {
		log.Fatal(err)
	}
	nv := cell.Variants()
	data := make([]byte, 0, len(cell.Alphabet)*nv*cell.W*cell.H)
	for _, r := range cell.Alphabet {
		hi := render(f, r)
		for _, blur := range cell.Blurs {
			for _, bold := range cell.Bold {
				m := hi
				if bold > 0 {
					m = dilate(hi, bold/cell.Scale*ss)
				}
				t := blurred(downsample(m), blur)
				for _, v := range t {
					data = append(data, uint8(math.Round(math.Max(0, math.Min(255, v*255)))))
				}
			}
		}
	}
	w, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "MRZT1\n")
	bw.Write([]byte{cell.W, cell.H, byte(len(cell.Alphabet)), byte(nv)})
	bw.Write(data)
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if *preview != "" {
		writePreview(*preview, data, nv)
	}
}

// render rasterises r into a supersampled cell (coverage 0–1).
func render(f *docgen.Font, r rune) []float64 {
	W, H := cell.W*ss, cell.H*ss
	z := vector.NewRasterizer(W, H)
	px := float64(ss) / cell.Scale // hi-res pixels per em
	f.AddGlyph(z, r, func(x, y float64) (float64, float64) { return x * px, (y - cell.Top) * px })
	a := image.NewAlpha(image.Rect(0, 0, W, H))
	z.Draw(a, a.Bounds(), image.Opaque, image.Point{})
	out := make([]float64, W*H)
	for i, v := range a.Pix {
		out[i] = float64(v) / 255
	}
	return out
}

// dilate thickens strokes by rad hi-res pixels (max over a disc).
func dilate(m []float64, rad float64) []float64 {
	W, H := cell.W*ss, cell.H*ss
	R := int(math.Ceil(rad))
	out := make([]float64, len(m))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			best := 0.0
			for dy := -R; dy <= R; dy++ {
				for dx := -R; dx <= R; dx++ {
					if float64(dx*dx+dy*dy) > rad*rad {
						continue
					}
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < W && yy < H && m[yy*W+xx] > best {
						best = m[yy*W+xx]
					}
				}
			}
			out[y*W+x] = best
		}
	}
	return out
}

func downsample(m []float64) []float64 {
	out := make([]float64, cell.W*cell.H)
	for y := 0; y < cell.H*ss; y++ {
		for x := 0; x < cell.W*ss; x++ {
			out[(y/ss)*cell.W+x/ss] += m[y*cell.W*ss+x] / (ss * ss)
		}
	}
	return out
}

func blurred(m []float64, sigma float64) []float64 {
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	sum := 0.0
	for i := range k {
		x := float64(i - rad)
		k[i] = math.Exp(-x * x / (2 * sigma * sigma))
		sum += k[i]
	}
	tmp := make([]float64, len(m))
	out := make([]float64, len(m))
	for y := 0; y < cell.H; y++ {
		for x := 0; x < cell.W; x++ {
			for j, kv := range k {
				if xx := x + j - rad; xx >= 0 && xx < cell.W {
					tmp[y*cell.W+x] += kv / sum * m[y*cell.W+xx]
				}
			}
		}
	}
	for y := 0; y < cell.H; y++ {
		for x := 0; x < cell.W; x++ {
			for j, kv := range k {
				if yy := y + j - rad; yy >= 0 && yy < cell.H {
					out[y*cell.W+x] += kv / sum * tmp[yy*cell.W+x]
				}
			}
		}
	}
	return out
}

func writePreview(path string, data []byte, nv int) {
	n := len(cell.Alphabet)
	img := image.NewGray(image.Rect(0, 0, n*(cell.W+2), nv*(cell.H+2)))
	for i := range img.Pix {
		img.Pix[i] = 128
	}
	for c := 0; c < n; c++ {
		for v := 0; v < nv; v++ {
			t := data[(c*nv+v)*cell.W*cell.H:]
			for y := 0; y < cell.H; y++ {
				for x := 0; x < cell.W; x++ {
					img.SetGray(c*(cell.W+2)+x, v*(cell.H+2)+y, color.Gray{255 - t[y*cell.W+x]})
				}
			}
		}
	}
	w, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if err := png.Encode(w, img); err != nil {
		log.Fatal(err)
	}
}
