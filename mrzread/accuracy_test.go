package mrzread

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/mrz"
)

var (
	accuracyFlag = flag.Bool("accuracy", false, "run the full MRZ accuracy evaluation (also VERIFYD_ACCURACY=1)")
	accuracyN    = flag.Int("accuracy.n", 500, "documents per variant in the full accuracy evaluation")
	accuracyJobs = flag.Int("accuracy.jobs", 1, "documents generated and read in parallel")
	accuracyOnly = flag.String("accuracy.variants", "", "comma-separated variants of the full evaluation (default all)")
	// accuracyFrom selects another set of documents (seeds) for the full
	// evaluation, so that a change tuned on one set can be checked on
	// photos it was never run on.
	accuracyFrom = flag.Int("accuracy.from", 0, "index of the first document of the full evaluation (another value gives other seeds)")
)

// accuracyNow is "today" for the generated documents (fixed, so that the
// data set does not change with the date).
var accuracyNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// requireFont skips (or, under VERIFYD_TEST_REQUIRE_ALL=1, fails) tests that
// render documents when the OCR-B font is not installed.
func requireFont(t testing.TB) {
	t.Helper()
	if _, err := docgen.OCRB(); err != nil {
		if errors.Is(err, docgen.ErrNoFont) {
			testdb.Skip(t, err.Error())
		}
		t.Fatal(err)
	}
}

// variant is one kind of photo in the evaluation.
type variant struct {
	name    string
	degrade func(r *rand.Rand) docgen.Degrade
}

// mild draws a hand-held photo in decent conditions: rotation ≤ 5°,
// perspective ≤ 3 % of the document width per corner, Gaussian blur σ
// 0.3–1.0 px, noise σ 2–6 levels, JPEG quality 60–90, brightness ±20,
// contrast ±20 %, illumination gradient ±15 %.
func mild(r *rand.Rand) docgen.Degrade {
	d := docgen.Mild()
	d.Blur = 0.3 + 0.7*r.Float64()
	d.Noise = 2 + 4*r.Float64()
	d.JPEGQuality = 60 + r.IntN(31)
	return d
}

var variants = []variant{
	{"mild", mild},
	{"glare", func(r *rand.Rand) docgen.Degrade { d := mild(r); d.Glare = true; return d }},
	{"heavy-blur", func(r *rand.Rand) docgen.Degrade {
		d := mild(r)
		d.Blur = 1.8 + 0.7*r.Float64()
		return d
	}},
	{"cut", func(r *rand.Rand) docgen.Degrade { d := mild(r); d.CutMRZ = true; return d }},
	{"covered", func(r *rand.Rand) docgen.Degrade { d := mild(r); d.CoverMRZ = true; return d }},
}

// photoVariants are photos as people take them with phones (issue 14).
// Every one prints the MRZ with a random printer model (docgen.Reprint:
// another OCR-B cut, glyph width/height/weight, ink spread, dot grid,
// jitter), never exactly the font the templates were rendered from, and
// adds one condition to the mild set.
var photoVariants = []variant{
	{"printer", func(r *rand.Rand) docgen.Degrade { return printed(r) }},
	{"tilted", func(r *rand.Rand) docgen.Degrade {
		d := printed(r)
		d.Rotate, d.Perspective = 20, 0.10
		return d
	}},
	{"camera-tilt", func(r *rand.Rand) docgen.Degrade {
		d := printed(r)
		d.Rotate, d.Tilt = 20, 30
		return d
	}},
	{"bent", func(r *rand.Rand) docgen.Degrade { d := printed(r); d.Bend = 3; d.Rotate = 10; return d }},
	{"lens", func(r *rand.Rand) docgen.Degrade { d := printed(r); d.Barrel = 0.15; d.Rotate = 10; return d }},
	{"resolution", func(r *rand.Rand) docgen.Degrade {
		d := printed(r)
		sizes := [][2]int{{1152, 864}, {1632, 1224}, {2592, 1944}, {3264, 2448}, {4000, 3000}}
		sz := sizes[r.IntN(len(sizes))]
		d.Width, d.Height = sz[0], sz[1]
		d.MinScale, d.MaxScale = 0.3, 0.95
		d.Blur *= float64(sz[0]) / 1600 // the same optics at every resolution
		return d
	}},
	{"lowlight", func(r *rand.Rand) docgen.Degrade {
		d := printed(r)
		d.LowLight, d.Noise = true, 4+6*r.Float64()
		return d
	}},
	{"soft", func(r *rand.Rand) docgen.Degrade { d := printed(r); d.Blur = 1.5 + 1.0*r.Float64(); return d }},
	{"motion", func(r *rand.Rand) docgen.Degrade { d := printed(r); d.MotionBlur = 9; return d }},
	{"shadow", func(r *rand.Rand) docgen.Degrade { d := printed(r); d.Shadow = true; return d }},
	{"phone", func(r *rand.Rand) docgen.Degrade { return phone(r, printed(r)) }},
	{"everything", func(r *rand.Rand) docgen.Degrade {
		d := phone(r, printed(r))
		d.Rotate, d.Perspective = 20, 0.08
		d.Bend, d.Barrel = 2, 0.08
		d.Blur = 0.5 + 1.0*r.Float64()
		d.MotionBlur = 4
		d.Shadow = r.IntN(2) == 0
		d.LowLight = r.IntN(3) == 0
		d.Glare = r.IntN(4) == 0
		return d
	}},
}

// printed is the mild set with the MRZ re-printed by a random printer.
func printed(r *rand.Rand) docgen.Degrade {
	d := mild(r)
	d.Printer = true
	return d
}

// phone adds phone processing: noise reduction smear, unsharp-mask halos,
// JPEG quality 50–95.
func phone(r *rand.Rand, d docgen.Degrade) docgen.Degrade {
	d.Denoise = 0.3 + 0.7*r.Float64()
	d.Sharpen = 0.5 + r.Float64()
	d.JPEGQuality = 50 + r.IntN(46)
	return d
}

// outcome is the result of reading one generated photo.
type outcome struct {
	index        int
	format       mrz.Format
	truth        []string
	res          Result
	err          error
	took         time.Duration
	cpu          time.Duration // process CPU time during Read (meaningful with one job)
	photoCut     bool          // the photo really cuts the MRZ
	photoCovered bool
	pitch        float64 // MRZ character pitch in the photo, pixels
	mpix         float64 // photo size in megapixels
}

// generate renders and photographs document i of variant v and reads it.
func evaluate(t testing.TB, v variant, i int) outcome {
	seed := uint64(i)*7919 + uint64(len(v.name))*104729
	r := rand.New(rand.NewPCG(seed, 1))
	g := docgen.NewGenerator(seed, accuracyNow)
	format := []mrz.Format{mrz.TD1, mrz.TD3, mrz.TD1, mrz.TD3, mrz.TD2}[i%5]
	doc, err := docgen.Render(g.Spec(format))
	if err != nil {
		t.Fatal(err)
	}
	ph, err := docgen.Photograph(doc, v.degrade(r), r.Uint64())
	if err != nil {
		t.Fatal(err)
	}
	if dumpDir := os.Getenv("MRZREAD_DUMP"); dumpDir != "" {
		if w, err := os.Create(fmt.Sprintf("%s/%s-%d.jpg", dumpDir, v.name, i)); err == nil {
			w.Write(ph.JPEG)
			w.Close()
		}
	}
	start, cpu := time.Now(), cpuTime()
	res, err := Read(ph.Image, 0)
	b := ph.Image.Bounds()
	return outcome{index: i, format: format, truth: doc.Lines, res: res, err: err, took: time.Since(start),
		cpu: cpuTime() - cpu, photoCut: ph.Cut, photoCovered: ph.Covered,
		pitch: math.Hypot(ph.MRZ[1].X-ph.MRZ[0].X, ph.MRZ[1].Y-ph.MRZ[0].Y) / float64(format.Width()),
		mpix:  float64(b.Dx()*b.Dy()) / 1e6}
}

// stats aggregates outcomes.
type stats struct {
	docs, found, exact, datesOK     int
	chars, charsOK, lines, linesOK  int
	valid, validWrong, corrected    int
	cutFlag, coverFlag, anyFlag     int
	reallyCut, reallyCovered        int
	times, cpus                     []time.Duration
	formatOK                        int
	failures                        []string
	cutFlaggedOrNone, coverFlagOrNF int
	// falseFlag: flagged CutOff/Covered although the photo neither cuts
	// nor covers the zone; checkedFlag: flagged although every check
	// digit verifies (a readable zone reported as partial).
	falseFlag, checkedFlag int
	// big: Read times on photos of 8 MP and more.
	big  []time.Duration
	outs []outcome
}

func (s *stats) add(o outcome) {
	s.docs++
	s.times = append(s.times, o.took)
	s.cpus = append(s.cpus, o.cpu)
	for _, l := range o.truth {
		s.chars += len(l)
		s.lines++
	}
	if o.photoCut {
		s.reallyCut++
	}
	if o.photoCovered {
		s.reallyCovered++
	}
	if o.err != nil {
		if o.photoCut {
			s.cutFlaggedOrNone++
		}
		if o.photoCovered {
			s.coverFlagOrNF++
		}
		s.failures = append(s.failures, fmt.Sprintf("#%d %v: %v", o.index, o.format, o.err))
		return
	}
	s.found++
	r := o.res
	if o.mpix >= 8 {
		s.big = append(s.big, o.took)
	}
	if (r.CutOff || r.Covered) && !o.photoCut && !o.photoCovered {
		s.falseFlag++
	}
	if (r.CutOff || r.Covered) && checksVerify(r) {
		s.checkedFlag++
	}
	if r.Format == o.format {
		s.formatOK++
	}
	if r.CutOff {
		s.cutFlag++
	}
	if r.Covered {
		s.coverFlag++
	}
	if r.CutOff || r.Covered {
		s.anyFlag++
	}
	if o.photoCut && (r.CutOff || r.Covered) {
		s.cutFlaggedOrNone++
	}
	if o.photoCovered && (r.CutOff || r.Covered) {
		s.coverFlagOrNF++
	}
	if len(r.Corrections) > 0 {
		s.corrected++
	}
	exact := r.Format == o.format
	for li, want := range o.truth {
		got := ""
		if li < len(r.Lines) {
			got = r.Lines[li]
		}
		if got == want {
			s.linesOK++
		} else {
			exact = false
		}
		for k := 0; k < len(want) && k < len(got); k++ {
			if got[k] == want[k] {
				s.charsOK++
			}
		}
	}
	if exact {
		s.exact++
	} else {
		s.failures = append(s.failures, fmt.Sprintf("#%d %v want %q\n        got %q (valid=%v cut=%v covered=%v)",
			o.index, o.format, o.truth, r.Lines, r.Valid, r.CutOff, r.Covered))
	}
	if r.Valid {
		s.valid++
		if !exact {
			s.validWrong++
		}
	}
	if datesRead(o.format, o.truth, r.Lines) {
		s.datesOK++
	}
}

// checksVerify reports whether every character of r was read and every
// check digit verifies (whatever the flags say).
func checksVerify(r Result) bool {
	text := make([][]byte, len(r.Lines))
	for i, l := range r.Lines {
		if strings.ContainsRune(l, '?') {
			return false
		}
		text[i] = []byte(l)
	}
	cks, ok := checks[r.Format]
	if !ok || len(text) != r.Format.Lines() {
		return false
	}
	for _, c := range cks {
		if !c.verify(text) {
			return false
		}
	}
	return true
}

// datesRead reports whether the birth and expiry dates (six digits each)
// were read correctly.
func datesRead(f mrz.Format, want, got []string) bool {
	type pos struct{ line, start int }
	var ps []pos
	switch f {
	case mrz.TD1:
		ps = []pos{{1, 0}, {1, 8}}
	default:
		ps = []pos{{1, 13}, {1, 21}}
	}
	for _, p := range ps {
		if p.line >= len(got) || len(got[p.line]) < p.start+6 ||
			got[p.line][p.start:p.start+6] != want[p.line][p.start:p.start+6] {
			return false
		}
	}
	return true
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

func (s *stats) timing() (mean, p95 time.Duration) { return meanP95(s.times) }

func p50(times []time.Duration) time.Duration {
	ts := slices.Clone(times)
	slices.Sort(ts)
	return ts[len(ts)/2]
}

func meanP95(times []time.Duration) (mean, p95 time.Duration) {
	if len(times) == 0 {
		return 0, 0
	}
	ts := slices.Clone(times)
	slices.Sort(ts)
	var sum time.Duration
	for _, d := range ts {
		sum += d
	}
	return sum / time.Duration(len(ts)), ts[len(ts)*95/100]
}

func run(t *testing.T, v variant, from, n, jobs int) *stats {
	outs := make([]outcome, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i] = evaluate(t, v, from+i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	s := &stats{outs: outs}
	for _, o := range outs {
		s.add(o)
	}
	return s
}

// Floors of the quick photo subset (TestAccuracy/photos).
const (
	quickLinesFloor    = 93 // % of lines exact (measured 97.5 % after the third pass on issue 14; 90.9 % before)
	quickFalseFlagMax  = 1  // measured 1 since the fourth pass (0 before): no slack left
	quickValidWrongMax = 2  // measured 1: see docs/accuracy.md, not a target
	// quickAngledFloor: lines exact of the tilted and camera-tilt photos
	// together (20 lines), measured 20.
	quickAngledFloor = 17
)

func report(t *testing.T, name string, s *stats, jobs int) {
	mean, p95 := s.timing()
	t.Logf("variant %s: %d documents", name, s.docs)
	t.Logf("  zone found            %s", pct(s.found, s.docs))
	t.Logf("  format right          %s", pct(s.formatOK, s.docs))
	t.Logf("  characters right      %s", pct(s.charsOK, s.chars))
	t.Logf("  lines exact           %s", pct(s.linesOK, s.lines))
	t.Logf("  whole MRZ exact       %s", pct(s.exact, s.docs))
	t.Logf("  dates right           %s", pct(s.datesOK, s.docs))
	t.Logf("  all checks verify     %s", pct(s.valid, s.docs))
	t.Logf("  valid but wrong       %s", pct(s.validWrong, s.docs))
	t.Logf("  check-digit corrected %s", pct(s.corrected, s.docs))
	t.Logf("  flagged cut-off       %s", pct(s.cutFlag, s.docs))
	t.Logf("  flagged covered       %s", pct(s.coverFlag, s.docs))
	t.Logf("  falsely flagged       %s (not cut or covered), %d with all checks verifying", pct(s.falseFlag, s.docs), s.checkedFlag)
	if len(s.big) > 0 {
		bm, _ := meanP95(s.big)
		t.Logf("  Read on ≥ 8 MP: %d photos, p50 %v, mean %v", len(s.big), p50(s.big).Round(time.Millisecond), bm.Round(time.Millisecond))
	}
	if s.reallyCut > 0 {
		t.Logf("  cut photos flagged (cut or covered) or no zone %s", pct(s.cutFlaggedOrNone, s.reallyCut))
	}
	if s.reallyCovered > 0 {
		t.Logf("  covered photos flagged (cut or covered) or no zone %s", pct(s.coverFlagOrNF, s.reallyCovered))
	}
	cmean, cp95 := meanP95(s.cpus)
	t.Logf("  Read wall time mean %v, p95 %v; CPU time mean %v, p95 %v (GOMAXPROCS=%d, %d jobs)",
		mean.Round(time.Millisecond), p95.Round(time.Millisecond), cmean.Round(time.Millisecond),
		cp95.Round(time.Millisecond), runtime.GOMAXPROCS(0), jobs)
	for i, f := range s.failures {
		if i == 10 && !testing.Verbose() {
			t.Logf("  ... %d more", len(s.failures)-10)
			break
		}
		if name == "mild" || name == "glare" || testing.Verbose() && os.Getenv("MRZREAD_MISSES") != "" {
			t.Logf("  miss: %s", f)
		}
	}
}

// TestAccuracy measures the reader on synthetic photos (internal/docgen).
// The quick subtest always runs (30 mild photos, 10 cut, 10 covered) and
// enforces floors; the full evaluation runs with -accuracy or
// VERIFYD_ACCURACY=1:
//
//	VERIFYD_ACCURACY=1 go test ./mrzread -run TestAccuracy/full -v -timeout 2h
func TestAccuracy(t *testing.T) {
	requireFont(t)
	t.Run("quick", func(t *testing.T) {
		s := run(t, variants[0], 100000, 30, 1)
		report(t, "mild", s, 1)
		// Floors, below the measured values (see docs/accuracy.md).
		if s.exact < 27 || s.datesOK < 29 || s.validWrong > 0 {
			t.Errorf("quick mild set: %d/30 exact, %d/30 dates right, %d valid but wrong; want ≥ 27, ≥ 29, 0",
				s.exact, s.datesOK, s.validWrong)
		}
		cut := run(t, variants[3], 100000, 10, 1)
		report(t, "cut", cut, 1)
		if cut.cutFlaggedOrNone < 9 || cut.validWrong > 0 {
			t.Errorf("quick cut set: %d/10 flagged or not found, %d valid but wrong", cut.cutFlaggedOrNone, cut.validWrong)
		}
		cov := run(t, variants[4], 100000, 10, 1)
		report(t, "covered", cov, 1)
		if cov.coverFlagOrNF < 9 || cov.validWrong > 0 {
			t.Errorf("quick covered set: %d/10 flagged or not found, %d valid but wrong", cov.coverFlagOrNF, cov.validWrong)
		}
	})
	t.Run("photos", func(t *testing.T) {
		// 4 photos of each phone-photo condition (48 in all), merged.
		all := &stats{}
		angled := 0 // lines exact on tilted and camera-tilt photos
		for _, v := range photoVariants {
			s := run(t, v, 200000, 4, 1)
			for _, o := range s.outs {
				all.add(o)
			}
			if v.name == "tilted" || v.name == "camera-tilt" {
				angled += s.linesOK
			}
			t.Logf("%-10s lines exact %s, valid but wrong %d, falsely flagged %d", v.name, pct(s.linesOK, s.lines), s.validWrong, s.falseFlag)
		}
		report(t, "photos", all, 1)
		// Floors, below the measured values (see docs/accuracy.md).
		if all.linesOK*100 < all.lines*quickLinesFloor || all.checkedFlag > 0 || all.falseFlag > quickFalseFlagMax || all.validWrong > quickValidWrongMax {
			t.Errorf("quick photo set: %s lines exact (floor %d %%), %d falsely flagged (max %d), %d flagged although every check verifies (max 0), %d valid but wrong (max %d)",
				pct(all.linesOK, all.lines), quickLinesFloor, all.falseFlag, quickFalseFlagMax, all.checkedFlag, all.validWrong, quickValidWrongMax)
		}
		if angled < quickAngledFloor {
			t.Errorf("quick photo set: %d lines exact on tilted and camera-tilt photos, floor %d", angled, quickAngledFloor)
		}
	})
	t.Run("full", func(t *testing.T) {
		if !*accuracyFlag && os.Getenv("VERIFYD_ACCURACY") != "1" {
			t.Skip("full accuracy evaluation: run with -accuracy or VERIFYD_ACCURACY=1")
		}
		var b strings.Builder
		for _, v := range slices.Concat(variants, photoVariants) {
			if *accuracyOnly != "" && !slices.Contains(strings.Split(*accuracyOnly, ","), v.name) {
				continue
			}
			s := run(t, v, *accuracyFrom, *accuracyN, *accuracyJobs)
			report(t, v.name, s, *accuracyJobs)
			mean, p95 := s.timing()
			cmean, _ := meanP95(s.cpus)
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%d) | %v / %v / %v |\n", v.name, s.docs,
				pct(s.found, s.docs), pct(s.charsOK, s.chars), pct(s.linesOK, s.lines), pct(s.exact, s.docs),
				pct(s.datesOK, s.docs), pct(s.valid, s.docs), pct(s.validWrong, s.docs), pct(s.cutFlag, s.docs),
				pct(s.coverFlag, s.docs), pct(s.falseFlag, s.docs), s.checkedFlag, mean.Round(time.Millisecond), p95.Round(time.Millisecond), cmean.Round(time.Millisecond))
		}
		t.Logf("markdown rows:\n%s", b.String())
	})
}
