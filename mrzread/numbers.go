package mrzread

import (
	"math"
	"sort"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// Document numbers and optional data admit letters and digits, so a
// glyph read as its look-alike (0 as O, 2 as Z) is caught only by the
// check digits, and those are mod 10: two O/0 swaps at weights 7 and 3
// change the weighted sum by 24 × 10 and verify. On independently
// rendered documents such pairs gave valid readings of wrong numbers
// (3O731O for 307310 in a personal number, J5ZJZ9O444 for J52J290444).
// decodeNumbers rereads those fields of a reading whose checks all
// verify: among the look-alike swaps whose templates score nearly as
// well as what was read, it takes the combination that keeps every check
// verifying and best explains both the glyphs and how such fields are
// written — in runs of letters and runs of digits (12345678, AB1234567)
// more often than switching between the two at every character, and
// seldom with the letters I, O and Q, which issuers of serial numbers
// leave out for their likeness to 1 and 0 (as vehicle identification
// numbers do, ISO 3779; German passport numbers such as C01X00T47 switch
// often but use none of them) — when it is clearly better than the
// reading as it stands and than any rival. A clear glyph keeps its
// character however the field is written: the prior decides only between
// templates within numberGap.
const (
	// numberGap is how far below the character read a look-alike's
	// template may score and still be considered (as nameGap).
	numberGap = 0.10
	// switchCost is the log-probability, in nats, a field pays each time
	// it passes between a letter and a digit.
	switchCost = 1.5
	// avoidedCost is what a field pays for each I, O or Q in it.
	avoidedCost = 1.5
	// numberClearly is how much better, in nats, the chosen combination
	// must explain the field than the reading as it stands and than the
	// runner-up combination.
	numberClearly = 1.0
)

// blindAlike pairs a letter with a digit it resembles (besides its
// lookAlike) whose value is the same modulo ten, so that no check digit
// can ever tell them apart: S counts 28, 8 counts 8. A motion-blurred 8
// in a card's all-digit optional data read as S, its 8 template 0.002
// behind (independently generated photos, docs/accuracy.md), and S's
// look-alike 5 does not verify there, so only the prior can decide.
var blindAlike = map[byte]byte{'S': '8'}

// decodeNumbers applies the numbers prior to text (every check of format
// already verifying) and returns its changes as corrections of their
// fields, at most half confident.
func decodeNumbers(format mrz.Format, text, alt [][]byte, scores [][][nClass]float32, conf [][]float64) []Correction {
	allVerify := func() bool { return verifies(format, text) }
	if !allVerify() {
		return nil
	}
	type cand struct {
		p    [2]int
		to   byte
		emit float64 // log-likelihood of the glyph as to, against as read
	}
	var cands []cand
	bias := digitBias(format, text, scores)
	for li, cls := range classes[format] {
		if li >= len(text) {
			break
		}
		for k := 0; k < len(cls) && k < len(text[li]); k++ {
			ch := text[li][k]
			if cls[k] != 'x' {
				continue
			}
			sc := scores[li][k]
			for _, to := range []byte{lookAlike[ch], blindAlike[ch]} {
				if to == 0 {
					continue
				}
				d := sc[strings.IndexByte(cell.Alphabet, to)] - sc[strings.IndexByte(cell.Alphabet, ch)]
				if isDigit(to) {
					d += bias[to]
				}
				if d >= -numberGap {
					cands = append(cands, cand{[2]int{li, k}, to, float64(d) / nameTemp})
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].emit > cands[j].emit })
	cands = cands[:min(len(cands), lookAlikeCandidates)]

	prior := func() float64 { return numberPrior(format, text) }
	swaps := make([]swap, len(cands))
	for i, c := range cands {
		swaps[i] = swap{c.p, c.to}
	}
	current := prior()
	best, second := current, math.Inf(-1)
	var bestSet []int
	verifyingSets(text, swaps, allVerify, func(set []int) {
		v := prior()
		for _, i := range set {
			v += cands[i].emit
		}
		switch {
		case v > best:
			best, second = v, best
			bestSet = append([]int(nil), set...)
		case v > second:
			second = v
		}
	})
	// The reading as it stands is a rival like any other combination.
	if bestSet == nil || best-max(second, current) < numberClearly {
		return nil
	}
	var out []Correction
	for _, ci := range bestSet {
		c := cands[ci]
		ch := text[c.p[0]][c.p[1]]
		out = append(out, Correction{Line: c.p[0], Pos: c.p[1], From: ch, To: c.to, Field: FieldOf(format, c.p[0], c.p[1])})
		alt[c.p[0]][c.p[1]] = ch
		text[c.p[0]][c.p[1]] = c.to
		conf[c.p[0]][c.p[1]] = math.Min(conf[c.p[0]][c.p[1]], 0.5)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Line < out[j].Line || out[i].Line == out[j].Line && out[i].Pos < out[j].Pos
	})
	return out
}

// digitBias measures how the zone's printer draws its digits: at the
// positions where only a digit may stand (dates and their check digits),
// a glyph is the digit read whatever the templates prefer, and how far
// its letter look-alike's template scores above the digit's there is
// how far the same digit's glyph is likely to score above it where a
// letter may stand too. It returns, for each digit read at two or more
// such positions, the mean of that excess (none when the digit's own
// template scores higher on average). The templates are one rendering of
// OCR-B: an independently generated zone, engraved at low resolution,
// had zeros whose O template scored 0.10 higher in every date, and its
// personal number 673098606 read as 673O986O6 — two O/0 swaps at weights
// 7 and 3, which verify — each O preferred to 0 by 0.13–0.15, beyond
// numberGap, so that the numbers prior never weighed them.
func digitBias(format mrz.Format, text [][]byte, scores [][][nClass]float32) map[byte]float32 {
	sum := map[byte]float32{}
	n := map[byte]int{}
	for li, cls := range classes[format] {
		if li >= len(text) || li >= len(scores) {
			break
		}
		for k := 0; k < len(cls) && k < len(text[li]) && k < len(scores[li]); k++ {
			ch := text[li][k]
			if strings.IndexByte("nmtc", cls[k]) < 0 || !isDigit(ch) {
				continue
			}
			best := float32(math.Inf(-1))
			for from, to := range lookAlike {
				if to == ch && !isDigit(from) {
					best = max(best, scores[li][k][strings.IndexByte(cell.Alphabet, from)])
				}
			}
			if math.IsInf(float64(best), -1) {
				continue
			}
			sum[ch] += best - scores[li][k][strings.IndexByte(cell.Alphabet, ch)]
			n[ch]++
		}
	}
	out := map[byte]float32{}
	for ch, c := range n {
		if c >= 2 && sum[ch] > 0 {
			out[ch] = sum[ch] / float32(c)
		}
	}
	return out
}

// numberPrior is the log-probability of how the alphanumeric fields of
// text are written: each switch between a letter and a digit next to each
// other costs switchCost, and each avoided letter avoidedCost.
func numberPrior(format mrz.Format, text [][]byte) float64 {
	v := 0.0
	for li, cls := range classes[format] {
		if li >= len(text) {
			break
		}
		t := text[li]
		for k := 0; k < len(cls) && k < len(t); k++ {
			if cls[k] != 'x' {
				continue
			}
			if t[k] == 'I' || t[k] == 'O' || t[k] == 'Q' {
				v -= avoidedCost
			}
			if k > 0 && cls[k-1] == 'x' && t[k] != '<' && t[k-1] != '<' && isDigit(t[k]) != isDigit(t[k-1]) {
				v -= switchCost
			}
		}
	}
	return v
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
