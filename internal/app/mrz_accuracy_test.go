//go:build unix

package app_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/app"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzocr"
	"github.com/verifyd/verifyd/ocr"
)

var (
	mrzEval         = flag.Bool("mrz.eval", false, "TestMRZReaders: run the evaluation of mrzread alone against mrzread with the Tesseract fallback")
	mrzEvalN        = flag.Int("mrz.n", 30, "TestMRZReaders: photos per set")
	mrzEvalFrom     = flag.Int("mrz.from", 0, "TestMRZReaders: index of the first photo (mrzread's -accuracy.from: another value, other seeds)")
	mrzEvalVariants = flag.String("mrz.variants", "", "TestMRZReaders: comma-separated sets (default all)")
	mrzEvalMisses   = flag.Bool("mrz.misses", false, "TestMRZReaders: log every photo the first reader does not read")
	mrzEvalAlone    = flag.Bool("mrz.second-alone", false, "TestMRZReaders: also run the second reader alone on every photo (with mrzread's located zone) and report what it reads")
)

// childrenCPU is the CPU time of the process's finished children (the
// tesseract processes).
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mrzTally counts one reader's results on one set.
type mrzTally struct {
	docs, lines, linesOK, exact, verified, validWrong int
}

func (t *mrzTally) add(truth, got []string) {
	t.docs++
	exact := len(got) == len(truth)
	for i, want := range truth {
		t.lines++
		if i < len(got) && got[i] == want {
			t.linesOK++
		} else {
			exact = false
		}
	}
	if exact {
		t.exact++
	}
	if len(got) > 0 {
		if _, err := mrz.Parse(got); err == nil {
			t.verified++
			if !exact {
				t.validWrong++
			}
		}
	}
}

// TestMRZReaders measures the document check's MRZ reading with and
// without the second reader (app.MRZReader with and without Tesseract)
// on mrzread's photo sets (the same photos at the same indices as
// mrzread's TestAccuracy): lines exact, whole MRZ exact, readings whose
// check digits verify and valid-but-wrong readings, and the CPU the
// fallback takes on the photos it runs on (the first reader failed).
//
//	go test -count=1 -run TestMRZReaders -v ./internal/app -args -mrz.eval -mrz.n 30 -mrz.from 50000
func TestMRZReaders(t *testing.T) {
	if !*mrzEval {
		t.Skip("run with -mrz.eval")
	}
	if _, err := docgen.OCRB(); err != nil {
		testdb.Skip(t, err.Error())
	}
	tess := &ocr.Tesseract{}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	first, both := app.MRZReader(nil), app.MRZReader(tess)
	ctx := context.Background()
	var rows []string
	for _, v := range mrzVariants {
		if *mrzEvalVariants != "" && !slices.Contains(strings.Split(*mrzEvalVariants, ","), v.name) {
			continue
		}
		var a, b, alone mrzTally
		var fallbacks, rescued, wrongRescue int
		var cpus, walls []time.Duration
		for i := *mrzEvalFrom; i < *mrzEvalFrom+*mrzEvalN; i++ {
			ph, doc, _ := mrzPhoto(t, v, i)
			cpu1 := processCPUAll()
			r1, err := first.ReadMRZ(ctx, ph.Image, 0)
			if err != nil {
				t.Fatal(err)
			}
			cpu1 = processCPUAll() - cpu1
			a.add(doc.Lines, r1.Lines)
			if *mrzEvalAlone {
				z := mrzocr.Zone{}
				if q, ok := r1.Evidence["found"].(bool); ok && q {
					z = mrzocr.Zone{Found: true, Quad: r1.Quad, Format: formatOf(r1)}
				}
				s, err := (mrzocr.Reader{OCR: tess}).Read(ctx, ph.Image, 0, z)
				if err != nil && !errors.Is(err, mrzocr.ErrNotRead) {
					t.Fatal(err)
				}
				alone.add(doc.Lines, s.Lines)
			}
			if r1.Lines != nil && verifiesLines(r1.Lines) {
				b.add(doc.Lines, r1.Lines)
				continue
			}
			fallbacks++
			start, cpu := time.Now(), processCPUAll()
			r2, err := both.ReadMRZ(ctx, ph.Image, 0)
			if err != nil {
				t.Fatal(err)
			}
			// What the fallback adds: the combined reader's CPU less the
			// first reader's on the same photo.
			walls, cpus = append(walls, time.Since(start)), append(cpus, processCPUAll()-cpu-cpu1)
			b.add(doc.Lines, r2.Lines)
			right := slices.Equal(r2.Lines, doc.Lines)
			if r2.Secondary {
				rescued++
				if !right {
					wrongRescue++
				}
			}
			if *mrzEvalMisses {
				t.Logf("%s #%d (cut %v covered %v): first %q (cut %v covered %v); second %v %q right=%v %v", v.name, i, ph.Cut, ph.Covered,
					r1.Lines, r1.CutOff, r1.Covered, r2.Secondary, r2.Lines, right, r2.Evidence["second_reader"])
			}
		}
		cm, cp := meanP95(cpus)
		wm, _ := meanP95(walls)
		row := fmt.Sprintf("| %s | %d | %s → %s | %s → %s | %s → %s | %d → %d | %d | %d (%d wrong) | %v / %v (wall %v) |", v.name, a.docs,
			pctOf(a.linesOK, a.lines), pctOf(b.linesOK, b.lines), pctOf(a.exact, a.docs), pctOf(b.exact, b.docs),
			pctOf(a.verified, a.docs), pctOf(b.verified, b.docs), a.validWrong, b.validWrong,
			fallbacks, rescued, wrongRescue, cm.Round(time.Millisecond), cp.Round(time.Millisecond), wm.Round(time.Millisecond))
		t.Log(row)
		if *mrzEvalAlone {
			t.Logf("%s: the second reader alone: lines exact %s, whole MRZ exact %s, check digits verify %s, valid but wrong %d",
				v.name, pctOf(alone.linesOK, alone.lines), pctOf(alone.exact, alone.docs), pctOf(alone.verified, alone.docs), alone.validWrong)
		}
		rows = append(rows, row)
	}
	t.Logf("| set | photos | lines exact | whole MRZ exact | check digits verify | valid but wrong | fallback ran | read by the fallback | CPU the fallback adds, mean / p95 |\n|---|---:|---|---|---|---|---:|---:|---|\n%s", strings.Join(rows, "\n"))
}

// processCPUAll is the CPU time of the process and its finished children.
func processCPUAll() time.Duration { return processCPU() + childrenCPU() }

func verifiesLines(lines []string) bool {
	_, err := mrz.Parse(lines)
	return err == nil
}

func pctOf(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

func meanP95(ds []time.Duration) (mean, p95 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return sum / time.Duration(len(s)), s[len(s)*95/100]
}

// formatOf is the format mrzread took the zone for (its evidence).
func formatOf(r engine.MRZRead) mrz.Format {
	for _, f := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3} {
		if r.Evidence["format"] == f.String() {
			return f
		}
	}
	return 0
}

// TestMRZFallbackCPU12MP measures what the fallback adds on the failure
// paths of 12 MP photos (4000×3000, the document 55–85 % of the width):
// the zone cut by the frame or covered by a finger, which mrzread does
// not read, so the fallback runs on every one.
//
//	go test -count=1 -run TestMRZFallbackCPU12MP -v ./internal/app -args -mrz.eval -mrz.n 10
func TestMRZFallbackCPU12MP(t *testing.T) {
	if !*mrzEval {
		t.Skip("run with -mrz.eval")
	}
	if _, err := docgen.OCRB(); err != nil {
		testdb.Skip(t, err.Error())
	}
	tess := &ocr.Tesseract{}
	if _, err := tess.Available(context.Background()); err != nil {
		testdb.Skip(t, err.Error())
	}
	first, both := app.MRZReader(nil), app.MRZReader(tess)
	ctx := context.Background()
	for _, v := range mrzVariants {
		if v.name != "cut" && v.name != "covered" {
			continue
		}
		big := mrzVariant{name: v.name, degrade: func(r *rand.Rand) docgen.Degrade {
			d := v.degrade(r)
			d.Width, d.Height = 4000, 3000
			d.Blur *= 2.5 // the same optics at 2.5× the resolution
			return d
		}}
		var firsts, adds []time.Duration
		read := 0
		for i := *mrzEvalFrom; i < *mrzEvalFrom+*mrzEvalN; i++ {
			ph, _, _ := mrzPhoto(t, big, i)
			c0 := processCPUAll()
			r1, err := first.ReadMRZ(ctx, ph.Image, 0)
			if err != nil {
				t.Fatal(err)
			}
			c1 := processCPUAll()
			if verifiesLines(r1.Lines) {
				continue
			}
			r2, err := both.ReadMRZ(ctx, ph.Image, 0)
			if err != nil {
				t.Fatal(err)
			}
			c2 := processCPUAll()
			if r2.Secondary {
				read++
			}
			firsts, adds = append(firsts, c1-c0), append(adds, (c2-c1)-(c1-c0))
		}
		fm, fp := meanP95(firsts)
		am, ap := meanP95(adds)
		t.Logf("%s at 12 MP: %d photos not read by mrzread (%d read by the fallback); mrzread CPU mean %v p95 %v; the fallback adds mean %v p95 %v",
			v.name, len(adds), read, fm.Round(time.Millisecond), fp.Round(time.Millisecond), am.Round(time.Millisecond), ap.Round(time.Millisecond))
	}
}
