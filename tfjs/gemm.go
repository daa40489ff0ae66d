package tfjs

import (
	"sync"
	"sync/atomic"
)

// The matrix multiplications behind convolutions: C[M×N] = A[M×K] · B[K×N],
// with A (the im2col patches of a feature map) packed into panels of mr
// rows and B (the filter) packed once into panels of nr columns, both
// interleaved along K so the inner kernel reads them sequentially. The
// kernel keeps an mr×nr block of C in registers; Go's register allocator
// has 15 usable floating-point registers on amd64 and spills larger
// blocks (measured: 3×3 runs fastest, both with and without FMA).
const (
	mr = 3
	nr = 3
)

// packedB is a K×N matrix packed into ceil(N/nr) panels of K×nr values
// (columns past N are zero).
type packedB struct {
	k, n int
	data []float32
}

// packB packs the row-major K×N matrix b.
func packB(b []float32, k, n int) packedB {
	panels := (n + nr - 1) / nr
	p := packedB{k: k, n: n, data: make([]float32, panels*k*nr)}
	for pi := 0; pi < panels; pi++ {
		dst := p.data[pi*k*nr : (pi+1)*k*nr]
		for kk := 0; kk < k; kk++ {
			for j := 0; j < nr; j++ {
				if col := pi*nr + j; col < n {
					dst[kk*nr+j] = b[kk*n+col]
				}
			}
		}
	}
	return p
}

// packedA is an M×K matrix packed into ceil(M/mr) panels of K×mr values
// (rows past M are zero).
type packedA struct {
	m, k int
	data []float32
}

func newPackedA(m, k int) packedA {
	panels := (m + mr - 1) / mr
	return packedA{m: m, k: k, data: make([]float32, panels*k*mr)}
}

// packA packs the row-major M×K matrix a.
func packA(a []float32, m, k int) packedA {
	p := newPackedA(m, k)
	for row := 0; row < m; row++ {
		pi, i := row/mr, row%mr
		dst := p.data[pi*k*mr:]
		src := a[row*k : (row+1)*k]
		for kk, v := range src {
			dst[kk*mr+i] = v
		}
	}
	return p
}

// gemmJob is one product c = a·b, c row-major M×N.
type gemmJob struct {
	a packedA
	b packedB
	c []float32
}

// gemm computes c = a·b, splitting the work across goroutines.
func gemm(a packedA, b packedB, c []float32) {
	gemmBatch([]gemmJob{{a, b, c}})
}

// gemmBatch computes several independent products, all their blocks
// sharing one pool of goroutines.
func gemmBatch(jobs []gemmJob) {
	gemmBatchN(jobs, threads())
}

// gemmBatchN is gemmBatch with at most workers goroutines.
func gemmBatchN(jobs []gemmJob, workers int) {
	type item struct{ job, ai, bi int }
	var items []item
	work := 0
	for j, job := range jobs {
		if job.a.k != job.b.k {
			panic("tfjs: gemm inner dimensions differ")
		}
		mPanels := (job.a.m + mr - 1) / mr
		nPanels := (job.b.n + nr - 1) / nr
		nb := (nPanels + nBlock(job.a.k) - 1) / nBlock(job.a.k)
		mb := (mPanels + mBlock - 1) / mBlock
		for ai := 0; ai < mb; ai++ {
			for bi := 0; bi < nb; bi++ {
				items = append(items, item{j, ai, bi})
			}
		}
		work += job.a.m * job.b.n * job.a.k
	}
	run := func(it item) { gemmBlock(jobs[it.job], it.ai, it.bi) }
	workers = min(workers, len(items))
	if workers <= 1 || work < 1<<16 {
		for _, it := range items {
			run(it)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) {
					return
				}
				run(items[i])
			}
		}()
	}
	wg.Wait()
}

// Work items are blocks of mBlock A panels × nBlock(k) B panels; a B block
// is sized to stay in L1/L2 while the A panels stream past it.
const mBlock = 16

func nBlock(k int) int { return max(1, (64<<10)/(4*k*nr)) }

func gemmBlock(job gemmJob, ai, bi int) {
	a, b, c := job.a, job.b, job.c
	m, n, k := a.m, b.n, a.k
	mPanels := (m + mr - 1) / mr
	nPanels := (n + nr - 1) / nr
	nb := nBlock(k)
	var tmp [mr * nr]float32
	for ap := ai * mBlock; ap < min(mPanels, (ai+1)*mBlock); ap++ {
		apan := a.data[ap*k*mr : (ap+1)*k*mr]
		for bp := bi * nb; bp < min(nPanels, (bi+1)*nb); bp++ {
			bpan := b.data[bp*k*nr : (bp+1)*k*nr]
			row, col := ap*mr, bp*nr
			if row+mr <= m && col+nr <= n {
				kernel(k, apan, bpan, c[row*n+col:], n)
				continue
			}
			if rows := m - row; rows < mr {
				// The last panel's missing rows are zeros: skip them (small
				// products, e.g. Winograd on a 4×4 map, have M = 1).
				kernelRows(rows, k, apan, bpan, tmp[:], nr)
			} else {
				kernel(k, apan, bpan, tmp[:], nr)
			}
			for i := 0; i < mr && row+i < m; i++ {
				for j := 0; j < nr && col+j < n; j++ {
					c[(row+i)*n+col+j] = tmp[i*nr+j]
				}
			}
		}
	}
}

// kernel sets the mr×nr block of c (row stride ldc) to the product of an A
// panel and a B panel. Written so that Go's compiler keeps the 9
// accumulators and 6 operands in registers; built with GOAMD64=v3 (or on
// arm64) each multiply-add becomes one fused instruction.
func kernel(k int, a, b []float32, c []float32, ldc int) {
	var c00, c01, c02, c10, c11, c12, c20, c21, c22 float32
	a = a[:k*mr]
	b = b[:k*nr]
	for kk := 0; kk < k; kk++ {
		av := a[kk*mr : kk*mr+mr : kk*mr+mr]
		bv := b[kk*nr : kk*nr+nr : kk*nr+nr]
		c00 += av[0] * bv[0]
		c01 += av[0] * bv[1]
		c02 += av[0] * bv[2]
		c10 += av[1] * bv[0]
		c11 += av[1] * bv[1]
		c12 += av[1] * bv[2]
		c20 += av[2] * bv[0]
		c21 += av[2] * bv[1]
		c22 += av[2] * bv[2]
	}
	r := c[0:nr:nr]
	r[0], r[1], r[2] = c00, c01, c02
	r = c[ldc : ldc+nr : ldc+nr]
	r[0], r[1], r[2] = c10, c11, c12
	r = c[2*ldc : 2*ldc+nr : 2*ldc+nr]
	r[0], r[1], r[2] = c20, c21, c22
}

// kernelRows is kernel for a panel with only rows < mr valid rows.
func kernelRows(rows, k int, a, b []float32, c []float32, ldc int) {
	a = a[:k*mr]
	b = b[:k*nr]
	for i := 0; i < rows; i++ {
		var c0, c1, c2 float32
		for kk := 0; kk < k; kk++ {
			x := a[kk*mr+i]
			bv := b[kk*nr : kk*nr+nr : kk*nr+nr]
			c0 += x * bv[0]
			c1 += x * bv[1]
			c2 += x * bv[2]
		}
		r := c[i*ldc : i*ldc+nr : i*ldc+nr]
		r[0], r[1], r[2] = c0, c1, c2
	}
}
