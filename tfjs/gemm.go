package tfjs

import (
	"sync"
	"sync/atomic"
)

// The matrix multiplications behind convolutions: C[M×N] = A[M×K] · B[K×N],
// with A (the im2col patches of a feature map) packed into panels of mr
// rows and B (the filter) packed once into panels of nr columns, both
// interleaved along K so the inner kernel reads them sequentially. The
// kernel keeps an mr×nr block of C in registers.
//
// Two micro-kernels exist, each with its own panel sizes:
//
//   - goKernel, 3×3, in Go: the reference, and the kernel on every
//     platform without the assembly one. Go's register allocator has 15
//     usable floating-point registers on amd64 and spills larger blocks
//     (measured: 3×3 runs fastest, both with and without FMA).
//   - asmKernel (gemm_amd64.s), 6×16 with AVX2 and FMA: chosen at run
//     time on amd64 CPUs (and operating systems) that support both.
//
// A matrix is packed for one kernel and remembers which (packedA.kern,
// packedB.kern); the kernel for new packings is activeKernel().

// microKernel is an inner kernel and the panel sizes it reads.
type microKernel struct {
	name   string
	mr, nr int
	// full sets the mr×nr block of c (row stride ldc) to the product of
	// an A panel and a B panel (k > 0).
	full func(k int, a, b, c []float32, ldc int)
	// rows is full for a panel of which only the first rows < mr rows are
	// valid; c has those rows only.
	rows func(rows, k int, a, b, c []float32, ldc int)
}

// maxTile bounds mr×nr over the kernels (the edge-tile buffer).
const maxTile = 6 * 16

// goMR and goNR are the Go kernel's panel sizes.
const (
	goMR = 3
	goNR = 3
)

var goKernel = &microKernel{name: "go", mr: goMR, nr: goNR, full: kernel, rows: kernelRows}

// useAsm selects the assembly kernel where there is one; tests turn it off
// to run the Go kernel on machines that have both. Matrices already
// packed (filters cached in a Conv2D) keep the layout they were packed
// with, so set it before building networks.
var useAsm = true

// activeKernel is the kernel new packings are made for.
func activeKernel() *microKernel {
	if k := asmKernel(); useAsm && k != nil {
		return k
	}
	return goKernel
}

// packedB is a K×N matrix packed into ceil(N/nr) panels of K×nr values
// (columns past N are zero).
type packedB struct {
	k, n int
	kern *microKernel
	data []float32
}

// packB packs the row-major K×N matrix b.
func packB(b []float32, k, n int) packedB {
	kern := activeKernel()
	nr := kern.nr
	panels := (n + nr - 1) / nr
	p := packedB{k: k, n: n, kern: kern, data: make([]float32, panels*k*nr)}
	for pi := 0; pi < panels; pi++ {
		dst := p.data[pi*k*nr : (pi+1)*k*nr]
		for kk := 0; kk < k; kk++ {
			row := b[kk*n : (kk+1)*n]
			d := dst[kk*nr : (kk+1)*nr]
			copy(d, row[min(n, pi*nr):min(n, (pi+1)*nr)])
		}
	}
	return p
}

// packedA is an M×K matrix packed into ceil(M/mr) panels of K×mr values
// (rows past M are zero): element (row, kk) is at
// data[(row/mr)*k*mr + kk*mr + row%mr].
type packedA struct {
	m, k int
	mr   int // kern.mr
	kern *microKernel
	data []float32
}

func newPackedA(m, k int) packedA {
	kern := activeKernel()
	panels := (m + kern.mr - 1) / kern.mr
	return packedA{m: m, k: k, mr: kern.mr, kern: kern, data: make([]float32, panels*k*kern.mr)}
}

// packA packs the row-major M×K matrix a.
func packA(a []float32, m, k int) packedA {
	p := newPackedA(m, k)
	mr := p.mr
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
		if job.a.kern != job.b.kern {
			panic("tfjs: gemm operands packed for different kernels")
		}
		mr, nr := job.a.kern.mr, job.a.kern.nr
		mPanels := (job.a.m + mr - 1) / mr
		nPanels := (job.b.n + nr - 1) / nr
		nbk := nBlock(job.a.k, nr)
		nb := (nPanels + nbk - 1) / nbk
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

// Work items are blocks of mBlock A panels × nBlock(k, nr) B panels; a B
// block is sized to stay in L1/L2 while the A panels stream past it.
const mBlock = 16

func nBlock(k, nr int) int { return max(1, (64<<10)/(4*k*nr)) }

func gemmBlock(job gemmJob, ai, bi int) {
	a, b, c := job.a, job.b, job.c
	m, n, k := a.m, b.n, a.k
	kern := a.kern
	mr, nr := kern.mr, kern.nr
	mPanels := (m + mr - 1) / mr
	nPanels := (n + nr - 1) / nr
	nb := nBlock(k, nr)
	if k == 0 { // no kernel call; c is the zero matrix
		clear(c[:m*n])
		return
	}
	var tmp [maxTile]float32
	for ap := ai * mBlock; ap < min(mPanels, (ai+1)*mBlock); ap++ {
		apan := a.data[ap*k*mr : (ap+1)*k*mr]
		row := ap * mr
		rows := min(mr, m-row)
		for bp := bi * nb; bp < min(nPanels, (bi+1)*nb); bp++ {
			bpan := b.data[bp*k*nr : (bp+1)*k*nr]
			col := bp * nr
			cols := min(nr, n-col)
			if rows == mr && cols == nr {
				kern.full(k, apan, bpan, c[row*n+col:], n)
				continue
			}
			if rows < mr {
				// The last panel's missing rows are zeros: skip them where
				// the kernel can (small products, e.g. Winograd on a 4×4
				// map, have M = 1).
				kern.rows(rows, k, apan, bpan, tmp[:rows*nr], nr)
			} else {
				kern.full(k, apan, bpan, tmp[:mr*nr], nr)
			}
			for i := 0; i < rows; i++ {
				copy(c[(row+i)*n+col:(row+i)*n+col+cols], tmp[i*nr:i*nr+cols])
			}
		}
	}
}

// kernel, the Go micro-kernel, sets the 3×3 block of c (row stride ldc)
// to the product of an A panel and a B panel. Written so that Go's
// compiler keeps the 9 accumulators and 6 operands in registers; built
// with GOAMD64=v3 (or on arm64) each multiply-add becomes one fused
// instruction.
func kernel(k int, a, b []float32, c []float32, ldc int) {
	const mr, nr = goMR, goNR
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
	const mr, nr = goMR, goNR
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
