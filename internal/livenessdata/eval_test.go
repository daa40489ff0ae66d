package livenessdata_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/livenessdata"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/liveness"
)

var (
	evalN     = flag.Int("liveness.n", 0, "TestLivenessEvaluation: attempts per species (0: the quick subset, 4 genuine and 1 of each attack)")
	evalSeed  = flag.Uint64("liveness.seed", 1, "TestLivenessEvaluation: seed of the challenges and sequences")
	evalCache = flag.String("liveness.cache", "", "TestLivenessEvaluation: JSON file of measured attempts, written when absent and read when present (the face models take most of the time; change Analyze and re-run in seconds)")
	evalWhy   = flag.Bool("liveness.why", false, "TestLivenessEvaluation: print every attempt's outcome and reason")
)

// The floors of the quick subset (CI). No attack may pass: every
// species is built to be refused, and one passing is a hole, not noise.
// Genuine attempts: issue 9's target is BPCER ≤ 10 %, which 4 attempts
// cannot measure; the floor guards against things getting worse than
// measured. With Analyze's first version 2 of these 4 failed (every
// blink: face-api's landmarks do not show shut eyes); since blinks are no
// longer drawn and the turn's review band starts at 5°, none of 12 in
// the full run failed (docs/accuracy.md). One is allowed for noise.
const maxGenuineFail = 1

// TestLivenessEvaluation builds genuine and attack attempts from the
// labelled videos (internal/livenessdata), measures their frames with
// the face models as the server does and reports what liveness.Analyze
// decides, in ISO/IEC 30107-3 terms:
//
//	go test -count=1 -run TestLivenessEvaluation -v ./internal/livenessdata -args -liveness.n 20
//
// prints the table of docs/accuracy.md ("Liveness (issue 9)").
func TestLivenessEvaluation(t *testing.T) {
	s, err := livenessdata.Open(livenessdata.FramesDir(testdb.RepoRoot(t)))
	if errors.Is(err, livenessdata.ErrNoFrames) {
		testdb.Skip(t, "the liveness evaluation needs the videos' frames: run scripts/liveness-frames")
	}
	if err != nil {
		t.Fatal(err)
	}
	quick := *evalN <= 0
	cases, elapsed := loadCases(t, s, quick)
	results := livenessdata.Score(cases, liveness.Analyze)
	if *evalWhy {
		for _, r := range results {
			t.Logf("%s (%s, %s) %v (peak between frames: %v, mild: %v): %s — %s", r.Case.Species, r.Case.Variant, r.Case.Person, r.Case.Input.Challenge.Steps, r.Case.Missed, r.Case.Mild, r.Report.Outcome, r.Report.Why)
		}
	}
	t.Logf("%d attempts (seed %d), measured in %s\n%s", len(results), *evalSeed, elapsed.Round(time.Second), livenessdata.Table(results))

	bySpecies, _ := livenessdata.Tallies(results)
	for _, sp := range livenessdata.AttackSpecies {
		tl := bySpecies[string(sp)]
		if tl.N == 0 {
			t.Errorf("%s: no attempts", sp)
		}
		if tl.Pass > 0 {
			t.Errorf("%s: %d of %d attacks passed (APCER %.0f %%)", sp, tl.Pass, tl.N, 100*tl.Share(tl.Pass))
		}
	}
	g := bySpecies[string(livenessdata.Genuine)]
	if g.N == 0 {
		t.Fatal("no genuine attempts")
	}
	if quick && g.Fail > maxGenuineFail {
		t.Errorf("genuine: %d of %d failed, more than %d", g.Fail, g.N, maxGenuineFail)
	}
	if !quick && g.Share(g.Fail) > 0.10 {
		t.Errorf("genuine: BPCER %.0f %% (%d of %d failed), above issue 9's 10 %%", 100*g.Share(g.Fail), g.Fail, g.N)
	}
}

// cacheFile is what -liveness.cache stores: the parameters the cases
// were drawn with, and the cases.
type cacheFile struct {
	Seed  uint64
	N     int
	Cases []livenessdata.Case
}

// loadCases measures the attempts, or reads them from -liveness.cache
// when it holds the same seed and size.
func loadCases(t *testing.T, s *livenessdata.Set, quick bool) ([]livenessdata.Case, time.Duration) {
	t.Helper()
	if *evalCache != "" {
		if b, err := os.ReadFile(*evalCache); err == nil {
			var c cacheFile
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("%s: %v", *evalCache, err)
			}
			if c.Seed == *evalSeed && c.N == *evalN {
				t.Logf("measured attempts read from %s", *evalCache)
				return c.Cases, 0
			}
			t.Logf("%s holds seed %d, n %d: measuring again", *evalCache, c.Seed, c.N)
		}
	}
	m := facetest.Models(t)
	ctx := context.Background()
	th := engine.DefaultFaceThresholds
	start := time.Now()
	progress := func(done, total int) {
		if testing.Verbose() && done%5 == 0 {
			fmt.Fprintf(os.Stderr, "liveness evaluation: %d/%d attempts measured (%s)\n", done, total, time.Since(start).Round(time.Second))
		}
	}
	var cases []livenessdata.Case
	if quick {
		g, err := s.Cases(ctx, m, th, []livenessdata.Species{livenessdata.Genuine}, 4, *evalSeed, progress)
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.Cases(ctx, m, th, livenessdata.AttackSpecies, 1, *evalSeed, progress)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(g, a...)
	} else {
		var err error
		species := append([]livenessdata.Species{livenessdata.Genuine}, livenessdata.AttackSpecies...)
		if cases, err = s.Cases(ctx, m, th, species, *evalN, *evalSeed, progress); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	if *evalCache != "" {
		b, err := json.Marshal(cacheFile{Seed: *evalSeed, N: *evalN, Cases: cases})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*evalCache, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cases, elapsed
}
