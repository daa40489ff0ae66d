package livenessdata

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/liveness"
)

// Case is one measured attempt: what liveness.Analyze is given for it.
type Case struct {
	Species Species
	Variant string
	Person  string
	// Missed are the genuine movements no frame shows at their peak
	// (Sequence.Missed).
	Missed []liveness.Step `json:",omitempty"`
	// Mild are the genuine movements taken from a segment labelled mild
	// (Sequence.Mild).
	Mild  []liveness.Step `json:",omitempty"`
	Input liveness.Input
}

// Cases draws n challenges per species (Genuine first, then
// AttackSpecies) from seed, builds each sequence, encodes its frames as
// the page uploads them and measures them with the face models (Measure)
// into Analyze's input. The reference face is the descriptor of the
// person's Selfie; the earlier attempt's digests are those of Reuse's
// earlier frames (and none for the others). progress, if not nil, is
// called after each case.
func (s *Set) Cases(ctx context.Context, fa engine.FaceAnalyzer, th engine.FaceThresholds, species []Species, n int, seed uint64, progress func(done, total int)) ([]Case, error) {
	refs := map[string][]float32{}
	for _, p := range Persons() {
		img, err := s.Selfie(p)
		if err != nil {
			return nil, err
		}
		faces, err := fa.Faces(ctx, img)
		if err != nil {
			return nil, err
		}
		if faces = th.Usable(faces); len(faces) != 1 {
			return nil, fmt.Errorf("livenessdata: %d usable faces on %s's selfie", len(faces), p)
		}
		refs[p] = faces[0].Descriptor
	}
	issued := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var out []Case
	total := n * len(species)
	all := append([]Species{Genuine}, AttackSpecies...)
	for _, sp := range species {
		// One stream per species, so that a species' first cases are the
		// same whichever species are drawn with it and however many.
		rng := rand.New(rand.NewPCG(seed, uint64(slices.Index(all, sp))+1))
		for i := range n {
			steps := liveness.Draw(rng.IntN, liveness.ChallengeSteps)
			seq, err := s.Attack(sp, steps, rng)
			if err != nil {
				return nil, fmt.Errorf("%s %d: %w", sp, i, err)
			}
			enc, err := Encode(seq.Frames)
			if err != nil {
				return nil, err
			}
			frames, err := Measure(ctx, fa, th, enc)
			if err != nil {
				return nil, fmt.Errorf("%s %d: %w", sp, i, err)
			}
			in := liveness.Input{
				Challenge: liveness.Challenge{
					ID: fmt.Sprintf("%s-%d", sp, i), Subject: fmt.Sprintf("eval-%s-%d", sp, i), Attempt: 1,
					Steps: steps, IssuedAt: issued, ExpiresAt: issued.Add(liveness.Lifetime),
				},
				Frames:           frames,
				Reference:        refs[seq.Person],
				MismatchDistance: th.MismatchDistance,
			}
			if seq.Earlier != nil {
				earlier, err := Encode(seq.Earlier)
				if err != nil {
					return nil, err
				}
				in.EarlierDigests = Digests(earlier)
				in.Challenge.Attempt = 2
			}
			out = append(out, Case{Species: sp, Variant: seq.Variant, Person: seq.Person, Missed: seq.Missed, Mild: seq.Mild, Input: in})
			if progress != nil {
				progress(len(out), total)
			}
		}
	}
	return out, nil
}

// Tally counts the outcomes of one species (or variant).
type Tally struct {
	N, Pass, Review, Fail int
}

// Share returns k/N (0 when N is 0).
func (t Tally) Share(k int) float64 {
	if t.N == 0 {
		return 0
	}
	return float64(k) / float64(t.N)
}

// Result is one case's outcome.
type Result struct {
	Case   Case
	Report liveness.Report
}

// Score runs analyze on every case.
func Score(cases []Case, analyze func(liveness.Input) liveness.Report) []Result {
	out := make([]Result, len(cases))
	for i, c := range cases {
		out[i] = Result{Case: c, Report: analyze(c.Input)}
	}
	return out
}

// Tallies counts the results by species and by species and variant
// ("species / variant").
func Tallies(results []Result) (bySpecies, byVariant map[string]Tally) {
	bySpecies, byVariant = map[string]Tally{}, map[string]Tally{}
	add := func(m map[string]Tally, k string, o liveness.Outcome) {
		t := m[k]
		t.N++
		switch o {
		case liveness.Pass:
			t.Pass++
		case liveness.Review:
			t.Review++
		default:
			t.Fail++
		}
		m[k] = t
	}
	for _, r := range results {
		add(bySpecies, string(r.Case.Species), r.Report.Outcome)
		v := r.Case.Variant
		if r.Case.Species == Genuine {
			v = "every peak recorded"
			if len(r.Case.Missed) > 0 {
				v = "a peak between frames"
			}
		}
		add(byVariant, string(r.Case.Species)+" / "+v, r.Report.Outcome)
		add(byVariant, string(r.Case.Species)+" / "+r.Case.Person, r.Report.Outcome)
	}
	return bySpecies, byVariant
}

// Table formats the results in ISO/IEC 30107-3 terms as Markdown: for
// each attack species its APCER (the share of attacks Analyze passes)
// and for genuine attempts the BPCER (the share it fails), with review
// counted apart (a review is neither accepted nor refused automatically),
// then the breakdown by variant.
func Table(results []Result) string {
	bySpecies, byVariant := Tallies(results)
	var b strings.Builder
	fmt.Fprintln(&b, "| species | attempts | pass | review | fail | APCER | BPCER |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---:|---:|---:|")
	for _, sp := range append([]Species{Genuine}, AttackSpecies...) {
		t, ok := bySpecies[string(sp)]
		if !ok {
			continue
		}
		apcer, bpcer := fmt.Sprintf("%.0f %%", 100*t.Share(t.Pass)), "—"
		if sp == Genuine {
			apcer, bpcer = "—", fmt.Sprintf("%.0f %% (+%.0f %% review)", 100*t.Share(t.Fail), 100*t.Share(t.Review))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s |\n", sp, t.N, t.Pass, t.Review, t.Fail, apcer, bpcer)
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| species / variant | attempts | pass | review | fail |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---:|")
	keys := make([]string, 0, len(byVariant))
	for k := range byVariant {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t := byVariant[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", k, t.N, t.Pass, t.Review, t.Fail)
	}
	return b.String()
}
