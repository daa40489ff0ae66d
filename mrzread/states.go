package mrzread

import (
	"math"
	"strings"
	"sync"

	"golang.org/x/text/language"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// A state code (the issuing state, the holder's nationality) has no check
// digit, and its letters are as easily misread as a name's: on
// independently generated photos a keystoned passport's nationality CHE
// was read "<HE", which no parser accepts, and ITA was read "TTA". Unlike
// a name, a state code comes from a closed list, so decodeStates puts
// back the one code of that list that differs from the reading in a
// single character whose template matched the glyph nearly as well as
// what was read, when no other code comes close.
const (
	// stateClearly is how much less, in template score, the chosen
	// code's changed character must cost than any rival code's.
	stateClearly = 0.03
)

// stateSpans are the positions of the state codes of each format: the
// issuing state and the nationality.
var stateSpans = map[mrz.Format][]span{
	mrz.TD1: {{0, 2, 5}, {1, 15, 18}},
	mrz.TD2: {{0, 2, 5}, {1, 10, 13}},
	mrz.TD3: {{0, 2, 5}, {1, 10, 13}},
}

// stateCodes is every code an MRZ may give a state: the ISO 3166-1
// alpha-3 country codes (golang.org/x/text's region table, which keeps
// former countries' codes that old documents still carry), Germany's
// "D<<", and ICAO 9303 Part 3's codes for organisations, for people of no
// or unspecified nationality, for Kosovo, and for its specimen state
// Utopia.
var stateCodes = sync.OnceValue(func() map[string]bool {
	codes := map[string]bool{}
	for _, c := range strings.Fields("D<< EUE GBD GBN GBO GBP GBS RKS UNA UNK UNO UTO " +
		"XBA XCC XCE XCO XDC XEC XES XIM XMP XOM XPO XSC XXA XXB XXC XXX") {
		codes[c] = true
	}
	var b [3]byte
	for b[0] = 'A'; b[0] <= 'Z'; b[0]++ {
		for b[1] = 'A'; b[1] <= 'Z'; b[1]++ {
			for b[2] = 'A'; b[2] <= 'Z'; b[2]++ {
				if r, err := language.ParseRegion(string(b[:])); err == nil && r.IsCountry() && r.ISO3() == string(b[:]) {
					codes[string(b[:])] = true
				}
			}
		}
	}
	return codes
})

// decodeStates replaces each state code of text that is no state's by the
// code that differs from it in one character within nameGap of the
// glyph's best template, cheapest by stateClearly over any other, and
// returns the changes as corrections, at most half confident.
func decodeStates(format mrz.Format, text, alt [][]byte, scores [][][nClass]float32, conf [][]float64) []Correction {
	var out []Correction
	for _, sp := range stateSpans[format] {
		if sp.line >= len(text) || sp.end > len(text[sp.line]) {
			continue
		}
		read := string(text[sp.line][sp.start:sp.end])
		if strings.ContainsAny(read, "?\x00") || stateCodes()[read] {
			continue
		}
		best, second := math.Inf(1), math.Inf(1)
		var to byte
		pos := -1
		for code := range stateCodes() {
			at := -1
			for i := range 3 {
				if code[i] != read[i] {
					if at >= 0 {
						at = -2
						break
					}
					at = i
				}
			}
			if at < 0 {
				continue
			}
			sc := scores[sp.line][sp.start+at]
			cost := float64(sc[strings.IndexByte(cell.Alphabet, read[at])] - sc[strings.IndexByte(cell.Alphabet, code[at])])
			if cost > nameGap {
				continue
			}
			switch {
			case cost < best:
				best, second = cost, best
				to, pos = code[at], sp.start+at
			case cost < second:
				second = cost
			}
		}
		if pos < 0 || second-best < stateClearly {
			continue
		}
		out = append(out, Correction{Line: sp.line, Pos: pos, From: text[sp.line][pos], To: to, Field: FieldOf(format, sp.line, pos)})
		alt[sp.line][pos] = text[sp.line][pos]
		text[sp.line][pos] = to
		conf[sp.line][pos] = math.Min(conf[sp.line][pos], 0.5)
	}
	return out
}

// StatesKnown reports whether the reading's issuing state and nationality
// are both codes an MRZ may give a state (stateCodes). Neither has a
// check digit: a reading whose checks all verify can still hold a state
// misread as no state's code ("AWX" for AUS on a soft photo, where the
// same zone enlarged read AUS).
func (r *Result) StatesKnown() bool {
	for _, sp := range stateSpans[r.Format] {
		if sp.line >= len(r.Lines) || sp.end > len(r.Lines[sp.line]) || !stateCodes()[r.Lines[sp.line][sp.start:sp.end]] {
			return false
		}
	}
	return true
}
