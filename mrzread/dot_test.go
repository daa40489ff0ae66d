package mrzread

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// TestDotUnrolled: the unrolled inner product equals, bit for bit, the
// plain loop over each row in threes it replaced, at every shift of the
// patch, so no reading changes with it.
func TestDotUnrolled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tmpl := make([]float32, tw*th)
	patch := make([]float32, pw*ph)
	plain := func(dx, dy int) float32 {
		var s0, s1, s2 float32
		for j := 0; j < th; j++ {
			row := patch[(j+dy)*pw+dx:][:tw]
			tr := tmpl[j*tw:][:tw]
			for i := 0; i+2 < tw; i += 3 {
				s0 += tr[i] * row[i]
				s1 += tr[i+1] * row[i+1]
				s2 += tr[i+2] * row[i+2]
			}
		}
		return s0 + s1 + s2
	}
	for range 20 {
		for i := range tmpl {
			tmpl[i] = rng.Float32()*2 - 1
		}
		for i := range patch {
			patch[i] = rng.Float32() * 255
		}
		for dy := 0; dy <= ph-th; dy++ {
			for dx := 0; dx <= pw-tw; dx++ {
				if got, want := dot(tmpl, patch, dx, dy), plain(dx, dy); got != want {
					t.Fatalf("dot at (%d, %d) = %v, the plain loop %v", dx, dy, got, want)
				}
			}
		}
	}
}

// BenchmarkDot times one template against one window of a cell's patch.
func BenchmarkDot(b *testing.B) {
	tmpl := make([]float32, tw*th)
	patch := make([]float32, pw*ph)
	for i := range tmpl {
		tmpl[i] = float32(i%7) - 3
	}
	for i := range patch {
		patch[i] = float32(i % 251)
	}
	var s float32
	for b.Loop() {
		s += dot(tmpl, patch, 2, 3)
	}
	_ = s
}

// TestSamplePatchUnchanged: the patch sampler, its offsets computed once
// per column and row and its bilinear sampling without math.Floor, gives
// bit for bit the patches of the per-sample computation it replaced, at
// random slopes, pitches, shifts, glyph scales and subsamplings, cells
// partly outside the image included.
func TestSamplePatchUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	g := &gray{w: 300, h: 120, pix: make([]uint8, 300*120)}
	for i := range g.pix {
		g.pix[i] = uint8(rng.IntN(256))
	}
	floorBilinear := func(x, y float64) (float64, bool) {
		x -= 0.5
		y -= 0.5
		if x < -0.5 || y < -0.5 || x > float64(g.w)-0.5 || y > float64(g.h)-0.5 {
			return 0, false
		}
		x0, y0 := int(math.Floor(x)), int(math.Floor(y))
		fx, fy := x-float64(x0), y-float64(y0)
		x1, y1 := x0+1, y0+1
		x0, x1 = max(x0, 0), min(x1, g.w-1)
		y0, y1 = max(y0, 0), min(y1, g.h-1)
		a, b := float64(g.pix[y0*g.w+x0]), float64(g.pix[y0*g.w+x1])
		c, d := float64(g.pix[y1*g.w+x0]), float64(g.pix[y1*g.w+x1])
		return (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy, true
	}
	// plain is samplePatchScaled as it was: every sample's position
	// computed in place.
	plain := func(l *lineGeom, k int, sx, sy, sw, sh float64, patch []float32) bool {
		ox, oy, dx, dy, nx, ny, ppe := cellFrame(l, k)
		ox += ppe * cell.Scale * (sx*dx + sy*nx)
		oy += ppe * cell.Scale * (sx*dy + sy*ny)
		step := ppe * cell.Scale
		ss := 1
		if step > 1.3 {
			ss = min(int(math.Ceil(step)), 3)
		}
		out, inner := 0, 0
		for j := 0; j < ph; j++ {
			for i := 0; i < pw; i++ {
				var acc float64
				okAll := true
				for sj := 0; sj < ss; sj++ {
					for si := 0; si < ss; si++ {
						ex := (float64(i-cell.Margin) + (float64(si)+0.5)/float64(ss)) * cell.Scale
						ey := cell.Top + (float64(j-cell.Margin)+(float64(sj)+0.5)/float64(ss))*cell.Scale
						if sw != 1 || sh != 1 {
							ex = cell.Advance/2 + (ex-cell.Advance/2)*sw
							ey = glyphMiddle + (ey-glyphMiddle)*sh
						}
						v, ok := floorBilinear(ox+ppe*(ex*dx+ey*nx), oy+ppe*(ex*dy+ey*ny))
						if !ok {
							okAll = false
							v = 255
						}
						acc += v
					}
				}
				if i >= cell.Margin && i < cell.Margin+tw && j >= cell.Margin && j < cell.Margin+th {
					inner++
					if !okAll {
						out++
					}
				}
				patch[j*pw+i] = float32(255 - acc/float64(ss*ss))
			}
		}
		return out*5 < inner
	}
	got, want := make([]float32, pw*ph), make([]float32, pw*ph)
	for n := range 2000 {
		// Lines anywhere from above the image to below it, starting
		// left of it and some running past its right edge, so that
		// cells lie inside, across every edge and outside.
		pitch := 6 + rng.Float64()*30 // 1–3 subsamples
		l := &lineGeom{icpt: rng.Float64()*160 - 10, slope: rng.Float64()*0.4 - 0.2, h: pitch * 1.3}
		x0 := -2*pitch + rng.Float64()*float64(g.w)
		for k := range 10 {
			l.centres = append(l.centres, x0+float64(k)*pitch+rng.Float64())
			l.pitch = append(l.pitch, pitch)
		}
		sw, sh := 1.0, 1.0
		if n%2 == 1 {
			sw, sh = 0.8+rng.Float64()*0.3, 0.8+rng.Float64()*0.3
		}
		if n%4 == 3 {
			sw = 1 // one scale at 1: both offsets are still scaled
		}
		k, sx, sy := rng.IntN(10), rng.Float64()*4-2, rng.Float64()*4-2
		okGot, okWant := samplePatchScaled(g, l, k, sx, sy, sw, sh, got), plain(l, k, sx, sy, sw, sh, want)
		if okGot != okWant || !slices.Equal(got, want) {
			t.Fatalf("case %d (cell %d, pitch %.2f, slope %.3f, scale %.2f×%.2f): sampled differently (ok %v, was %v)",
				n, k, pitch, l.slope, sw, sh, okGot, okWant)
		}
	}
}

// BenchmarkBinarize thresholds a detection-sized image (1700 × 1275)
// with text-like dark runs, as every detection and levelling does.
func BenchmarkBinarize(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := &gray{w: 1700, h: 1275, pix: make([]uint8, 1700*1275)}
	for i := range g.pix {
		g.pix[i] = uint8(180 + rng.IntN(40))
		if (i/5)%7 == 0 {
			g.pix[i] = uint8(rng.IntN(90))
		}
	}
	for b.Loop() {
		binarize(g, 50)
	}
}
