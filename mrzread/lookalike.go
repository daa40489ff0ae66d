package mrzread

import (
	"math"
	"sort"
	"strings"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// lookAlike pairs the MRZ characters that OCR-B prints alike: a letter and
// a digit that differ by a stroke end or a few percent of height or
// width. Where a field admits both (document numbers, optional data),
// only the check digits can tell them apart; the templates are one
// rendering of OCR-B, and another printer or font cut (a bolder stroke, a
// low-resolution engraving, a digit printed no taller than the capitals)
// moves such a glyph to its partner with full confidence, where the
// runner-up rule of correct does not look.
var lookAlike = map[byte]byte{
	'O': '0', '0': 'O', 'D': '0', 'Q': '0',
	'I': '1', '1': 'I',
	'S': '5', '5': 'S',
	'B': '8', '8': 'B',
	'Z': '2', '2': 'Z',
	'G': '6', '6': 'G',
}

// repair applies check-digit corrections: first correct's runner-up
// rule; when checks still fail, look-alike swaps (lookAlikes) on top of
// it; when that fails too, look-alikes on the reading as it was and the
// runner-up rule after them (correct's composite rule may have "repaired"
// a field whose own check then still failed, so that the combination
// that explains every check is no longer reachable from its result).
// When nothing makes every check verify, correct's result stands.
func repair(format mrz.Format, text, alt [][]byte, margin, conf [][]float64, scores [][][nClass]float32) []Correction {
	allVerify := func() bool { return verifies(format, text) }
	saved := snapshot(text, alt, conf)
	out := correct(format, text, alt, margin, conf)
	if allVerify() {
		return out
	}
	afterCorrect := snapshot(text, alt, conf)
	if la := lookAlikes(format, text, scores, conf); allVerify() {
		return append(out, la...)
	}
	saved.restore(text, alt, conf)
	la := lookAlikes(format, text, scores, conf)
	if len(la) > 0 {
		if more := correct(format, text, alt, margin, conf); allVerify() {
			return append(la, more...)
		}
	}
	afterCorrect.restore(text, alt, conf)
	return out
}

// state is a copy of a reading's characters, runner-ups and confidences.
type state struct {
	text, alt [][]byte
	conf      [][]float64
}

func snapshot(text, alt [][]byte, conf [][]float64) state {
	var s state
	for i := range text {
		s.text = append(s.text, append([]byte(nil), text[i]...))
		s.alt = append(s.alt, append([]byte(nil), alt[i]...))
		s.conf = append(s.conf, append([]float64(nil), conf[i]...))
	}
	return s
}

func (s state) restore(text, alt [][]byte, conf [][]float64) {
	for i := range text {
		copy(text[i], s.text[i])
		copy(alt[i], s.alt[i])
		copy(conf[i], s.conf[i])
	}
}

// maxLookAlikes bounds how many characters one reading may have swapped
// for their look-alikes, and lookAlikeCandidates how many positions are
// tried: every combination of up to four of twelve is 793 checks (a
// document number with two O/0 and optional data with two more).
const (
	maxLookAlikes       = 4
	lookAlikeCandidates = 12
)

// lookAlikes repairs a reading whose check digits still fail after
// correct by swapping characters of the alphanumeric fields for their
// look-alikes. Of every combination of at most maxLookAlikes swaps among
// the positions of failing checks, it takes the one that makes every
// check of the format verify and costs the least correlation (the
// templates' preference for the character read over its look-alike),
// when no other such combination comes close: check digits are mod 10,
// so one random swap in eleven verifies a field by chance, and both the
// field's check and the composite must hold. The glyphs alone cannot
// always tell: an O/0 swap at weight 3 changes the sum as much as the
// reverse swap at weight 7 (24 × 3 ≡ −24 × 7 mod 10), and a
// motion-blurred passport's personal number 88102830240, read with its
// last 0 as O, verified as well with a 0 of the middle read as O, the
// templates preferring the one by 0.003. Between such combinations of
// slight swaps, how the field is written (numberPrior, as decodeNumbers
// weighs it) decides when it clearly prefers one. Swaps are reported as
// corrections (a corrected reading decides nothing alone: the engine
// has the printed data confirm it) at most half confident.
func lookAlikes(format mrz.Format, text [][]byte, scores [][][nClass]float32, conf [][]float64) []Correction {
	cks := checks[format]
	if verifies(format, text) {
		return nil
	}
	// Positions covered by a field check that verifies stay as read; the
	// composite alone covers the optional data.
	settled := map[[2]int]bool{}
	for ci := range cks {
		if c := &cks[ci]; c.name != mrz.FieldComposite && c.verify(text) {
			for _, p := range c.positions() {
				settled[p] = true
			}
		}
	}
	type cand struct {
		p    [2]int
		to   byte
		cost float64
	}
	var cands []cand
	seen := map[[2]int]bool{}
	for ci := range cks {
		c := &cks[ci]
		if c.verify(text) {
			continue
		}
		for _, s := range c.parts {
			cls := classes[format][s.line]
			for k := s.start; k < s.end; k++ {
				p := [2]int{s.line, k}
				ch := text[s.line][k]
				to, ok := lookAlike[ch]
				if !ok || cls[k] != 'x' || settled[p] || seen[p] {
					continue
				}
				seen[p] = true
				sc := scores[s.line][k]
				cost := float64(sc[strings.IndexByte(cell.Alphabet, ch)] - sc[strings.IndexByte(cell.Alphabet, to)])
				cands = append(cands, cand{p, to, math.Max(0, cost)})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].cost < cands[j].cost })
	cands = cands[:min(len(cands), lookAlikeCandidates)]
	swaps := make([]swap, len(cands))
	for i, c := range cands {
		swaps[i] = swap{c.p, c.to}
	}

	// Combinations are ranked by their glyphs' cost first, as before the
	// prior was added: the cheapest is taken when no other comes within
	// clearly. When the glyphs cannot tell, the prior may break the tie,
	// but only between combinations whose every swap is one the
	// templates barely prefer (within tieCost): a seed 1 passport's
	// U202431264, its 3 read as S (no look-alike), verified as UZ02451Z6
	// through three swaps two of which the templates objected to, and
	// the prior, asked to rank every combination, would have taken it.
	const clearly, tieCost = 0.05, 0.05
	allVerify := func() bool { return verifies(format, text) }
	bestCost, secondCost := math.Inf(1), math.Inf(1)
	var cheapest []int
	bestScore, secondScore := math.Inf(-1), math.Inf(-1)
	var tieBreak []int
	verifyingSets(text, swaps, allVerify, func(set []int) {
		cost, slight := 0.0, true
		for _, i := range set {
			cost += cands[i].cost
			slight = slight && cands[i].cost <= tieCost
		}
		switch {
		case cost < bestCost:
			bestCost, secondCost = cost, bestCost
			cheapest = append([]int(nil), set...)
		case cost < secondCost:
			secondCost = cost
		}
		v := numberPrior(format, text) - cost/nameTemp
		switch {
		case v > bestScore && slight:
			bestScore, secondScore = v, bestScore
			tieBreak = append([]int(nil), set...)
		case v > secondScore:
			secondScore = v
		}
	})
	bestSet := cheapest
	if bestSet != nil && secondCost-bestCost < clearly {
		// Another combination as cheap is as likely: a guess, not a
		// repair, unless how such fields are written tells them apart
		// (nats, on the scale of nameTemp).
		bestSet = nil
		if tieBreak != nil && bestScore-secondScore >= clearly/nameTemp {
			bestSet = tieBreak
		}
	}
	if bestSet == nil {
		return nil
	}
	var out []Correction
	for _, ci := range bestSet {
		c := cands[ci]
		field := mrz.FieldComposite
		for k := range cks {
			if ck := &cks[k]; ck.name != mrz.FieldComposite {
				for _, p := range ck.positions() {
					if p == c.p {
						field = ck.name
					}
				}
			}
		}
		out = append(out, Correction{Line: c.p[0], Pos: c.p[1], From: text[c.p[0]][c.p[1]], To: c.to, Field: field})
		text[c.p[0]][c.p[1]] = c.to
		conf[c.p[0]][c.p[1]] = math.Min(conf[c.p[0]][c.p[1]], 0.5)
	}
	return out
}

// swap is one character of a reading changed for another: the character
// at p (line, position) to to.
type swap struct {
	p  [2]int
	to byte
}

// verifyingSets calls visit with every set of at most maxLookAlikes of
// swaps (their indices, ascending) that makes verify hold, while the set
// is applied to text; text is as it was when it returns.
func verifyingSets(text [][]byte, swaps []swap, verify func() bool, visit func(set []int)) {
	var try func(start int, set []int)
	try = func(start int, set []int) {
		if len(set) > 0 {
			olds := make([]byte, len(set))
			for i, si := range set {
				s := swaps[si]
				olds[i] = text[s.p[0]][s.p[1]]
				text[s.p[0]][s.p[1]] = s.to
			}
			if verify() {
				visit(set)
			}
			for i, si := range set {
				s := swaps[si]
				text[s.p[0]][s.p[1]] = olds[i]
			}
		}
		if len(set) == maxLookAlikes {
			return
		}
		for i := start; i < len(swaps); i++ {
			try(i+1, append(set, i))
		}
	}
	try(0, nil)
}

// verifies reports whether every check digit of format verifies on text.
func verifies(format mrz.Format, text [][]byte) bool {
	cks := checks[format]
	for ci := range cks {
		if !cks[ci].verify(text) {
			return false
		}
	}
	return true
}
