package tfjs

import (
	"sync"
	"sync/atomic"
)

// Winograd minimal filtering F(4×4, 3×3) (Lavin & Gray, "Fast Algorithms
// for Convolutional Neural Networks", 2015) for 3×3 stride-1
// convolutions: each 4×4 output tile is computed from a 6×6 input tile
// with 36 multiplications per input/output channel pair instead of 144.
// The input and filter tiles are transformed (V = Bᵀ d B, U = G g Gᵀ), the
// 36 element positions become 36 independent matrix products over the
// channels (M = V·U), and the output tile is Y = Aᵀ M A. The transforms
// add a little rounding error (relative ~1e-6 in float32 for these
// layers, see TestWinogradMatchesDirect), far below what the parity tests
// tolerate.

// winogradFilter is a 3×3 filter transformed into 36 Cin×Cout matrices,
// packed for the matrix kernel.
type winogradFilter struct {
	cin, cout int
	u         [36]packedB
}

// G, the filter transform (6×3).
var winoG = [6][3]float64{
	{1.0 / 4, 0, 0},
	{-1.0 / 6, -1.0 / 6, -1.0 / 6},
	{-1.0 / 6, 1.0 / 6, -1.0 / 6},
	{1.0 / 24, 1.0 / 12, 1.0 / 6},
	{1.0 / 24, -1.0 / 12, 1.0 / 6},
	{0, 0, 1},
}

func newWinogradFilter(filter *Tensor) *winogradFilter {
	cin, cout := filter.Shape[2], filter.Shape[3]
	w := &winogradFilter{cin: cin, cout: cout}
	var mats [36][]float32
	for i := range mats {
		mats[i] = make([]float32, cin*cout)
	}
	for c := 0; c < cin; c++ {
		for k := 0; k < cout; k++ {
			var g [3][3]float64
			for ky := 0; ky < 3; ky++ {
				for kx := 0; kx < 3; kx++ {
					g[ky][kx] = float64(filter.Data[((ky*3+kx)*cin+c)*cout+k])
				}
			}
			// U = G g Gᵀ, in float64 and rounded once.
			var gg [6][3]float64
			for i := 0; i < 6; i++ {
				for j := 0; j < 3; j++ {
					gg[i][j] = winoG[i][0]*g[0][j] + winoG[i][1]*g[1][j] + winoG[i][2]*g[2][j]
				}
			}
			for i := 0; i < 6; i++ {
				for j := 0; j < 6; j++ {
					mats[i*6+j][c*cout+k] = float32(gg[i][0]*winoG[j][0] + gg[i][1]*winoG[j][1] + gg[i][2]*winoG[j][2])
				}
			}
		}
	}
	for i := range mats {
		w.u[i] = packB(mats[i], cin, cout)
	}
	return w
}

// winogradBlock is how many tiles are transformed and multiplied together:
// their transformed inputs and products (36 × block × channels) stay in
// cache between the three stages. A multiple of every kernel's mr (3, 6).
const winogradBlock = 66

// apply computes the stride-1 convolution of x with explicit padding
// (top and left; the output size is given) into a new [oh, ow, cout]
// tensor, calling post (if not nil) on each output pixel's channels.
func (w *winogradFilter) apply(x *Tensor, pad Pad, oh, ow int, post func([]float32)) *Tensor {
	tilesY, tilesX := (oh+3)/4, (ow+3)/4
	tiles := tilesY * tilesX
	out := New(oh, ow, w.cout)
	g := winogradGeom{x: x, pad: pad, oh: oh, ow: ow, tilesX: tilesX, out: out, post: post}
	blocks := (tiles + winogradBlock - 1) / winogradBlock
	workers := min(threads(), blocks)
	if workers <= 1 {
		// One block (small maps; each stage splits its own work across
		// goroutines) or one thread.
		s := w.newScratch(min(tiles, winogradBlock))
		for b := 0; b < blocks; b++ {
			w.block(g, b*winogradBlock, min(tiles, (b+1)*winogradBlock), s, threads())
		}
		return out
	}
	// Many blocks: each goroutine takes whole blocks, single-threaded.
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.newScratch(winogradBlock)
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				w.block(g, b*winogradBlock, min(tiles, (b+1)*winogradBlock), s, 1)
			}
		}()
	}
	wg.Wait()
	return out
}

type winogradGeom struct {
	x      *Tensor
	pad    Pad
	oh, ow int
	tilesX int
	out    *Tensor
	post   func([]float32)
}

// winogradScratch holds one block's transformed inputs and products.
type winogradScratch struct {
	v    [36]packedA
	m    [36][]float32
	jobs []gemmJob
}

func (w *winogradFilter) newScratch(n int) *winogradScratch {
	s := &winogradScratch{jobs: make([]gemmJob, 36)}
	for i := range s.v {
		s.v[i] = newPackedA(n, w.cin)
		s.m[i] = make([]float32, n*w.cout)
	}
	return s
}

// block computes output tiles [t0, t1) with up to workers goroutines.
func (w *winogradFilter) block(g winogradGeom, t0, t1 int, s *winogradScratch, workers int) {
	n := t1 - t0
	h, wd, c := g.x.HWC()
	x, pad, tilesX := g.x, g.pad, g.tilesX
	// Input transform, straight into the packed A matrices of the 36
	// products (tile = row, channel = column).
	v := s.v
	for i := range v {
		v[i].m = n
	}
	mr := v[0].mr
	zero := make([]float32, c)
	parallelRowsN(n, workers, func(r0, r1 int) {
		var d [36][]float32
		tmp := make([]float32, 36*c)
		for r := r0; r < r1; r++ {
			t := t0 + r
			ty, tx := t/tilesX, t%tilesX
			y0, x0 := ty*4-pad.Top, tx*4-pad.Left
			for i := 0; i < 6; i++ {
				iy := y0 + i
				for j := 0; j < 6; j++ {
					ix := x0 + j
					if iy < 0 || iy >= h || ix < 0 || ix >= wd {
						d[i*6+j] = zero
					} else {
						d[i*6+j] = x.Data[(iy*wd+ix)*c : (iy*wd+ix+1)*c]
					}
				}
			}
			// tmp = Bᵀ d: row i of tmp from the rows of d, channel-wise.
			for j := 0; j < 6; j++ {
				d0, d1, d2, d3, d4, d5 := d[j][:c], d[6+j][:c], d[12+j][:c], d[18+j][:c], d[24+j][:c], d[30+j][:c]
				u0, u1, u2 := tmp[j*c:(j+1)*c], tmp[(6+j)*c:(7+j)*c], tmp[(12+j)*c:(13+j)*c]
				u3, u4, u5 := tmp[(18+j)*c:(19+j)*c], tmp[(24+j)*c:(25+j)*c], tmp[(30+j)*c:(31+j)*c]
				for ci := range d0 {
					a0, a1, a2, a3, a4, a5 := d0[ci], d1[ci], d2[ci], d3[ci], d4[ci], d5[ci]
					u0[ci] = 4*a0 - 5*a2 + a4
					u1[ci] = -4*a1 - 4*a2 + a3 + a4
					u2[ci] = 4*a1 - 4*a2 - a3 + a4
					u3[ci] = -2*a1 - a2 + 2*a3 + a4
					u4[ci] = 2*a1 - a2 - 2*a3 + a4
					u5[ci] = 4*a1 - 5*a3 + a5
				}
			}
			// V = tmp B, written into the packed A matrices (row r).
			base := (r/mr)*c*mr + r%mr
			for i := 0; i < 6; i++ {
				q0, q1, q2 := tmp[i*6*c:(i*6+1)*c], tmp[(i*6+1)*c:(i*6+2)*c], tmp[(i*6+2)*c:(i*6+3)*c]
				q3, q4, q5 := tmp[(i*6+3)*c:(i*6+4)*c], tmp[(i*6+4)*c:(i*6+5)*c], tmp[(i*6+5)*c:(i*6+6)*c]
				v0, v1, v2 := v[i*6].data[base:], v[i*6+1].data[base:], v[i*6+2].data[base:]
				v3, v4, v5 := v[i*6+3].data[base:], v[i*6+4].data[base:], v[i*6+5].data[base:]
				for ci := range q0 {
					a0, a1, a2, a3, a4, a5 := q0[ci], q1[ci], q2[ci], q3[ci], q4[ci], q5[ci]
					o := ci * mr
					v0[o] = 4*a0 - 5*a2 + a4
					v1[o] = -4*a1 - 4*a2 + a3 + a4
					v2[o] = 4*a1 - 4*a2 - a3 + a4
					v3[o] = -2*a1 - a2 + 2*a3 + a4
					v4[o] = 2*a1 - a2 - 2*a3 + a4
					v5[o] = 4*a1 - 5*a3 + a5
				}
			}
		}
	})
	// The 36 products M = V·U.
	k := w.cout
	m := s.m
	for i := range s.jobs {
		s.jobs[i] = gemmJob{a: v[i], b: w.u[i], c: m[i][:n*k]}
	}
	gemmBatchN(s.jobs, workers)
	// Output transform Y = Aᵀ M A.
	oh, ow, out, post := g.oh, g.ow, g.out, g.post
	parallelRowsN(n, workers, func(r0, r1 int) {
		tmp := make([]float32, 24*k)
		for r := r0; r < r1; r++ {
			t := t0 + r
			ty, tx := t/tilesX, t%tilesX
			// tmp = Aᵀ M: 4 rows × 6 columns of channel vectors.
			for j := 0; j < 6; j++ {
				s0, s1, s2 := m[j][r*k:(r+1)*k], m[6+j][r*k:(r+1)*k], m[12+j][r*k:(r+1)*k]
				s3, s4, s5 := m[18+j][r*k:(r+1)*k], m[24+j][r*k:(r+1)*k], m[30+j][r*k:(r+1)*k]
				u0, u1, u2, u3 := tmp[j*k:(j+1)*k], tmp[(6+j)*k:(7+j)*k], tmp[(12+j)*k:(13+j)*k], tmp[(18+j)*k:(19+j)*k]
				for co := range s0 {
					a0, a1, a2, a3, a4, a5 := s0[co], s1[co], s2[co], s3[co], s4[co], s5[co]
					u0[co] = a0 + a1 + a2 + a3 + a4
					u1[co] = a1 - a2 + 2*(a3-a4)
					u2[co] = a1 + a2 + 4*(a3+a4)
					u3[co] = a1 - a2 + 8*(a3-a4) + a5
				}
			}
			// Y = tmp A, straight into the output pixels.
			for i := 0; i < 4; i++ {
				oy := ty*4 + i
				if oy >= oh {
					break
				}
				q0, q1, q2 := tmp[i*6*k:(i*6+1)*k], tmp[(i*6+1)*k:(i*6+2)*k], tmp[(i*6+2)*k:(i*6+3)*k]
				q3, q4, q5 := tmp[(i*6+3)*k:(i*6+4)*k], tmp[(i*6+4)*k:(i*6+5)*k], tmp[(i*6+5)*k:(i*6+6)*k]
				ox := tx * 4
				row := out.Data[(oy*ow+ox)*k:]
				n := min(4, ow-ox)
				q0, q1, q2, q3, q4, q5 = q0[:k], q1[:k], q2[:k], q3[:k], q4[:k], q5[:k]
				if n == 4 {
					p0, p1, p2, p3 := row[:k], row[k:2*k], row[2*k:3*k], row[3*k:4*k]
					for co := range q0 {
						a0, a1, a2, a3, a4, a5 := q0[co], q1[co], q2[co], q3[co], q4[co], q5[co]
						p0[co] = a0 + a1 + a2 + a3 + a4
						p1[co] = a1 - a2 + 2*(a3-a4)
						p2[co] = a1 + a2 + 4*(a3+a4)
						p3[co] = a1 - a2 + 8*(a3-a4) + a5
					}
				} else {
					for co := range q0 {
						a0, a1, a2, a3, a4, a5 := q0[co], q1[co], q2[co], q3[co], q4[co], q5[co]
						y := [4]float32{
							a0 + a1 + a2 + a3 + a4,
							a1 - a2 + 2*(a3-a4),
							a1 + a2 + 4*(a3+a4),
							a1 - a2 + 8*(a3-a4) + a5,
						}
						for j := 0; j < n; j++ {
							row[j*k+co] = y[j]
						}
					}
				}
				if post != nil {
					for j := 0; j < n; j++ {
						post(row[j*k : (j+1)*k])
					}
				}
			}
		}
	})
}
