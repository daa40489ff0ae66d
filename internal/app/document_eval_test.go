package app_test

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/mrz"
)

// The photos and forgeries both document evaluations (docgen's and
// htmldoc's documents) use, so that their tables compare like with like.

func mild(*rand.Rand) docgen.Degrade { return docgen.Mild() }

// tilted20 turns the document by up to 20°.
func tilted20(*rand.Rand) docgen.Degrade {
	d := docgen.Mild()
	d.Rotate = 20
	return d
}

// phoneProcessing smears, sharpens and compresses as phone cameras do.
func phoneProcessing(r *rand.Rand) docgen.Degrade {
	d := docgen.Mild()
	d.Denoise, d.Sharpen, d.JPEGQuality = 0.6, 1.2, 50+r.IntN(46)
	return d
}

// lowLight under-exposes with sensor noise and gain.
func lowLight(*rand.Rand) docgen.Degrade {
	d := docgen.Mild()
	d.LowLight = true
	return d
}

// forgeMinorBirth prints a 15-year-old's birth date.
func forgeMinorBirth(f *mrz.Fields, r *rand.Rand) {
	f.BirthDate = mrz.Date{Year: docNow.Year() - 15, Month: time.Month(1 + r.IntN(12)), Day: 1 + r.IntN(28)}
}

// forgeExpiry prints an expiry date 1–3 years past.
func forgeExpiry(f *mrz.Fields, r *rand.Rand) {
	f.ExpiryDate = mrz.Date{Year: docNow.Year() - 1 - r.IntN(3), Month: time.Month(1 + r.IntN(12)), Day: 1 + r.IntN(28)}
}

// forgeNumber changes three digits of the printed number.
func forgeNumber(f *mrz.Fields, r *rand.Rand) {
	b := []byte(f.DocumentNumber)
	for _, i := range []int{len(b) - 1, len(b) - 3, len(b) - 4} {
		b[i] = '0' + byte((int(b[i])+3+r.IntN(5))%10)
	}
	f.DocumentNumber = string(b)
}

// forgeSurname prints another surname.
func forgeSurname(f *mrz.Fields, _ *rand.Rand) {
	for _, s := range []string{"WINTERBOTTOM", "KARLSSON", "BERNARDI", "OYELOWO", "DRAGOMIR"} {
		if !strings.Contains(f.Surname, s[:4]) {
			f.Surname = s
			return
		}
	}
}

// forgeSurnameLetter prints a sibling of the surname, one letter inside it
// another that does not look like it (MEYER for MAYER, JANSEN for JENSEN):
// a real name a forger can choose, one letter from the holder's.
func forgeSurnameLetter(f *mrz.Fields, _ *rand.Rand) {
	b := []byte(f.Surname)
	swap := map[byte]byte{'A': 'E', 'E': 'A', 'O': 'A', 'I': 'A', 'U': 'A'}
	for i := 1; i+1 < len(b); i++ {
		if c, ok := swap[b[i]]; ok && b[i-1] != ' ' && b[i+1] != ' ' {
			b[i] = c
			f.Surname = string(b)
			return
		}
	}
	// No inner vowel (a two-letter name, or none away from a space).
	if b[1] == 'A' {
		b[1] = 'E'
	} else {
		b[1] = 'A'
	}
	f.Surname = string(b)
}

// outcome is what a decision amounts to in the document evaluations:
// "approved", "review", or the failure reason.
func outcome(d engine.Decision) verifyd.Reason {
	switch {
	case d.Review:
		return "review"
	case d.Status == verifyd.StatusFailed:
		return d.Reason
	}
	return "approved"
}

// accusations are the verdicts that say a document is forged, a minor's,
// expired or invalid: wrong for a genuine document, not a photo to take
// again.
var accusations = []verifyd.Reason{verifyd.ReasonPotentialFraud, verifyd.ReasonMinor, verifyd.ReasonExpiredID, verifyd.ReasonInvalidID}

// decisionTally counts one case's decisions against what is right for it.
type decisionTally struct {
	n, right, review, wrong int
	// approvedWrongly counts approvals where something else was right;
	// accused, accusations of a genuine document.
	approvedWrongly, accused int
	// notes counts the reviews and wrong decisions by what they said.
	notes map[string]int
}

// add counts the decision got of a case whose right outcomes are want
// (want[0] "approved" for genuine documents); note says why it was taken.
func (tl *decisionTally) add(want []verifyd.Reason, got verifyd.Reason, note string) {
	if tl.notes == nil {
		tl.notes = map[string]int{}
	}
	tl.n++
	switch {
	case got == "review" && slices.Contains(want, "review"):
		tl.right++
	case got == "review":
		tl.review++
		tl.notes["review"+note]++
	case slices.Contains(want, got):
		tl.right++
	default:
		tl.wrong++
		if got == "approved" {
			tl.approvedWrongly++
		}
		if want[0] == "approved" && slices.Contains(accusations, got) {
			tl.accused++
		}
		tl.notes[string(got)+note]++
	}
}

// logTable logs the table of docs/accuracy.md, one row per case that ran
// (names[i] is tallies[i]'s case), each followed by its notes.
func logTable(t *testing.T, names []string, tallies []decisionTally) {
	t.Helper()
	t.Logf("| case | n | right | review | wrong |")
	t.Logf("|---|---:|---:|---:|---:|")
	for i, tl := range tallies {
		if tl.n == 0 {
			continue
		}
		t.Logf("| %s | %d | %d | %d | %d |", names[i], tl.n, tl.right, tl.review, tl.wrong)
		keys := make([]string, 0, len(tl.notes))
		for k := range tl.notes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("    %d× %s", tl.notes[k], k)
		}
	}
}

// logReadings logs what the document and visual-zone checks read.
func logReadings(t *testing.T, d engine.Decision) {
	t.Helper()
	for _, r := range d.Results {
		if r.Check == "visual_zone" || r.Check == "document" {
			t.Logf("    %s: %v", r.Check, r.Evidence["text"])
		}
	}
}
