package mrzread

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// templates.bin holds the OCR-B glyph templates, rendered by
// internal/gentemplates from the OCR-B font of Debian's fonts-ocr-b, which
// its author Matthew Skala released to the public domain (its OCR-B
// METAFONT sources, by Norbert Schwarz, carry a permissive licence: "You
// may freely use, modify and/or distribute this file, without
// limitation"). Embedding them means the reader needs no font at run time.
//
//go:generate go run ./internal/gentemplates -o templates.bin
//go:embed templates.bin
var templatesBin []byte

// The unrolled dot product needs this.
var _ = [1]int{}[cell.W%3]

const (
	nClass = len(cell.Alphabet)
	tw, th = cell.W, cell.H
	pw, ph = cell.W + 2*cell.Margin, cell.H + 2*cell.Margin // sampled patch
)

// templateSet holds every template as a zero-mean, unit-norm vector.
type templateSet struct {
	nv int
	t  [][]float32 // index class*nv + variant
	// coarse is the variant used to rank all classes first.
	coarse int
}

var loadTemplates = sync.OnceValues(func() (*templateSet, error) {
	b := templatesBin
	if !bytes.HasPrefix(b, []byte("MRZT1\n")) || len(b) < 10 {
		return nil, fmt.Errorf("mrzread: bad templates.bin")
	}
	b = b[6:]
	if int(b[0]) != tw || int(b[1]) != th || int(b[2]) != nClass || int(b[3]) != cell.Variants() {
		return nil, fmt.Errorf("mrzread: templates.bin does not match the cell geometry (run go generate)")
	}
	nv := int(b[3])
	b = b[4:]
	if len(b) != nClass*nv*tw*th {
		return nil, fmt.Errorf("mrzread: templates.bin is truncated")
	}
	ts := &templateSet{nv: nv, coarse: 1 * len(cell.Bold)} // blur 1.0, normal weight
	for i := 0; i < nClass*nv; i++ {
		raw := b[i*tw*th : (i+1)*tw*th]
		v := make([]float32, tw*th)
		mean := 0.0
		for _, x := range raw {
			mean += float64(x)
		}
		mean /= float64(len(raw))
		norm := 0.0
		for j, x := range raw {
			d := float64(x) - mean
			v[j] = float32(d)
			norm += d * d
		}
		norm = math.Sqrt(norm)
		for j := range v {
			v[j] /= float32(norm)
		}
		ts.t = append(ts.t, v)
	}
	return ts, nil
})

// window holds, for one shift of the template inside the patch, the
// norm of the patch window around its mean.
type window struct {
	dx, dy int
	norm   float32
}

// patchWindows computes the norm of every template-sized window of patch.
func patchWindows(patch []float32) (ws [(2*cell.Margin + 1) * (2*cell.Margin + 1)]window, empty bool) {
	n := float64(tw * th)
	k := 0
	maxNorm := 0.0
	for dy := 0; dy <= 2*cell.Margin; dy++ {
		for dx := 0; dx <= 2*cell.Margin; dx++ {
			var s, ss float64
			for j := 0; j < th; j++ {
				row := patch[(j+dy)*pw+dx : (j+dy)*pw+dx+tw]
				for _, v := range row {
					s += float64(v)
					ss += float64(v) * float64(v)
				}
			}
			varsum := ss - s*s/n
			if varsum < 0 {
				varsum = 0
			}
			ws[k] = window{dx, dy, float32(math.Sqrt(varsum))}
			maxNorm = math.Max(maxNorm, math.Sqrt(varsum))
			k++
		}
	}
	// Less than 2 grey levels of standard deviation: nothing there at all
	// (correlation is contrast-invariant, so faint glyphs are still read).
	return ws, maxNorm < 2*math.Sqrt(n)
}

// dot is the inner product of template t with the template-sized window of
// patch at (dx, dy). Three accumulators let the additions overlap; each
// row is unrolled over fixed-size arrays, which leaves no bounds check in
// the loop (a fifth of all the engine's CPU time on independently
// generated photos went here, docs/performance.md). The sums are taken
// in the same order as a plain loop over the row in threes.
func dot(t, patch []float32, dx, dy int) float32 {
	// The unrolled rows below are for templates 18 wide: any other width
	// does not compile.
	var _ = [1]struct{}{}[tw-18]
	var s0, s1, s2 float32
	for j := 0; j < th; j++ {
		r := (*[tw]float32)(patch[(j+dy)*pw+dx:][:tw])
		p := (*[tw]float32)(t[j*tw:][:tw])
		s0 += p[0] * r[0]
		s1 += p[1] * r[1]
		s2 += p[2] * r[2]
		s0 += p[3] * r[3]
		s1 += p[4] * r[4]
		s2 += p[5] * r[5]
		s0 += p[6] * r[6]
		s1 += p[7] * r[7]
		s2 += p[8] * r[8]
		s0 += p[9] * r[9]
		s1 += p[10] * r[10]
		s2 += p[11] * r[11]
		s0 += p[12] * r[12]
		s1 += p[13] * r[13]
		s2 += p[14] * r[14]
		s0 += p[15] * r[15]
		s1 += p[16] * r[16]
		s2 += p[17] * r[17]
	}
	return s0 + s1 + s2
}

// cellResult is the outcome of matching one character cell.
type cellResult struct {
	score   [nClass]float32 // best normalised correlation per class
	empty   bool            // no contrast: nothing printed, or covered
	outside bool            // the cell lies (partly) outside the image
	// contrast is the standard deviation of the patch at the best shift.
	contrast float32
	// dx, dy is the best shift of the templates in the patch (template
	// pixels, 0 = centred).
	dx, dy int
	// sx, sy is where the patch was sampled, relative to the cell
	// (template pixels): a cell searched again around where the line's
	// glyphs say its glyph sits.
	sx, sy float64
	// scale is the glyph size the patch was sampled for, relative to the
	// font's (samplePatchScaled; 0: the font's own).
	scale float64
}

// shift returns where the cell's glyph sits relative to the cell, in
// template pixels at the font's size: dx, dy are pixels of a patch
// sampled at scale.
func (cr *cellResult) shift() (x, y float64) {
	s := cr.scale
	if s == 0 {
		s = 1
	}
	return cr.sx + float64(cr.dx)*s, cr.sy + float64(cr.dy)*s
}

// match scores patch (pw×ph darkness values) against every class: all
// classes with one template variant at coarse shifts, then the six best
// classes with every variant around the best shift.
func (ts *templateSet) match(patch []float32, out *cellResult) {
	ws, empty := patchWindows(patch)
	if empty {
		out.empty = true
		return
	}
	at := func(dx, dy int) window { return ws[dy*(2*cell.Margin+1)+dx] }
	M := cell.Margin
	ncc := func(t []float32, dx, dy int) float32 {
		w := at(dx, dy)
		if w.norm == 0 {
			return 0
		}
		return dot(t, patch, dx, dy) / w.norm
	}
	// Stage 1: coarse.
	bestC, bestDX, bestDY := 0, M, M
	var bestS float32 = -2
	for c := 0; c < nClass; c++ {
		t := ts.t[c*ts.nv+ts.coarse]
		var cs float32 = -2
		for dy := M - 2; dy <= M+2; dy += 2 {
			for dx := M - 2; dx <= M+2; dx += 2 {
				if s := ncc(t, dx, dy); s > cs {
					cs = s
					if s > bestS {
						bestS, bestC, bestDX, bestDY = s, c, dx, dy
					}
				}
			}
		}
		out.score[c] = cs
	}
	// Stage 2: refine the shift with the best class.
	t := ts.t[bestC*ts.nv+ts.coarse]
	cx, cy := bestDX, bestDY
	for dy := max(cy-1, 0); dy <= min(cy+1, 2*M); dy++ {
		for dx := max(cx-1, 0); dx <= min(cx+1, 2*M); dx++ {
			if s := ncc(t, dx, dy); s > bestS {
				bestS, bestDX, bestDY = s, dx, dy
			}
		}
	}
	out.contrast = at(bestDX, bestDY).norm / float32(math.Sqrt(tw*th))
	out.dx, out.dy = bestDX-M, bestDY-M
	// Stage 3: the best classes, every variant, around that shift.
	order := make([]int, nClass)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return out.score[order[i]] > out.score[order[j]] })
	for _, c := range order[:6] {
		best := out.score[c]
		for v := 0; v < ts.nv; v++ {
			t := ts.t[c*ts.nv+v]
			for dy := max(bestDY-1, 0); dy <= min(bestDY+1, 2*M); dy++ {
				for dx := max(bestDX-1, 0); dx <= min(bestDX+1, 2*M); dx++ {
					if s := ncc(t, dx, dy); s > best {
						best = s
					}
				}
			}
		}
		out.score[c] = best
	}
}

// offCentre is what a template pays in rematch for matching a pixel above
// or below where the line's glyphs put its cell: printers place single
// glyphs a pixel off the line (print-head registration, per-glyph
// jitter), and a bold 8 scored a pixel off lost to S (independently
// generated documents, docs/accuracy.md: 88 read S8, 371459890 read
// 371459S9O), while the digit 0 is told from the letter O by about a pixel
// of height, which the cost keeps deciding when the glyph sits where the
// line says.
const offCentre = 0.015

// rematch scores patch again for the classes in cands, every variant, with
// the template at most one pixel off horizontally and, at a cost
// (offCentre), vertically: patch has been resampled where the line's
// glyphs sit, so the height and position of a glyph in its cell count (the
// digit 0 is taller than the letter O, 1 sits further left than I).
func (ts *templateSet) rematch(patch []float32, cands []int, out *cellResult) {
	ws, empty := patchWindows(patch)
	if empty {
		return
	}
	M := cell.Margin
	for _, c := range cands {
		var best float32 = -2
		for v := 0; v < ts.nv; v++ {
			t := ts.t[c*ts.nv+v]
			for dy := M - 1; dy <= M+1; dy++ {
				pen := float32(0)
				if dy != M {
					pen = offCentre
				}
				for dx := M - 1; dx <= M+1; dx++ {
					w := ws[dy*(2*M+1)+dx]
					if w.norm == 0 {
						continue
					}
					if s := dot(t, patch, dx, dy)/w.norm - pen; s > best {
						best = s
					}
				}
			}
		}
		out.score[c] = best
	}
}
