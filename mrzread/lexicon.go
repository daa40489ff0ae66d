package mrzread

import (
	_ "embed"
	"math"
	"strings"
	"sync"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// The letter model of decodeNames weighs two or three letters at a time,
// so it cannot tell a misread name from a rare one: on independently
// generated photos the zones still read wrongly were mostly names whose
// wrong letter was a near rival of the right one beyond what the letters
// around it decide (STIENNE for ETIENNE, YEREMA for VERENA, MCREAU for
// MOREAU, IVER for IYER). OCR engines settle such words with a
// dictionary, and so does decodeLexicon: a name word that is no word of
// the lexicon (the person names of @faker-js/faker's locales, written as
// an MRZ writes them, namelexicon.txt) becomes the one lexicon word that
// the glyphs explain nearly as well — its letters' templates within
// lexiconGap of the letters read, in at most one place (two in words of
// six letters or more), and clearly better than any other such word. A
// word of the lexicon, or one no lexicon word comes that near, is left as
// read: most names of the world are in no list, and a clear glyph keeps
// its letter.
const (
	// lexiconGap is how far below the letter read a lexicon word's
	// letter's template may score. A cell is read fully confidently at a
	// margin of 0.06 and decodeNames weighs rivals up to nameGap (0.10)
	// behind; the dictionary, a stronger prior than letter trigrams,
	// may reach further, not as far as glyphs of unlike letters.
	lexiconGap = 0.12
	// lexiconClearly is how much less, in summed template score, the
	// chosen word must give up than the runner-up.
	lexiconClearly = 0.04
	// lexiconMinLen is the shortest word looked up: short words have
	// many lexicon neighbours (ANA, ANN, AND…).
	lexiconMinLen = 4
)

//go:embed namelexicon.txt
var lexiconText string

// lexicon holds namelexicon.txt's words by length.
var lexicon = sync.OnceValue(func() map[int]map[string]bool {
	by := map[int]map[string]bool{}
	for _, w := range strings.Fields(lexiconText) {
		if by[len(w)] == nil {
			by[len(w)] = map[string]bool{}
		}
		by[len(w)][w] = true
	}
	return by
})

// decodeLexicon rereads each word of the name field of text (format's
// span) that is no lexicon word as the lexicon word its cells' template
// scores allow (see above), changes its letters and returns those changes
// as corrections of the field (alt takes the letter replaced). Words
// with a cell unread or not scored are left alone.
func decodeLexicon(format mrz.Format, text, alt [][]byte, scores [][][nClass]float32, readable [][]bool) []Correction {
	sp, ok := nameSpans[format]
	if !ok || sp.line >= len(text) || sp.line >= len(scores) {
		return nil
	}
	t, sc := text[sp.line], scores[sp.line]
	var out []Correction
	for k := sp.start; k < sp.end && k < len(t); {
		if t[k] == '<' {
			k++
			continue
		}
		e := k
		ok := true
		for e < sp.end && e < len(t) && t[e] != '<' {
			ok = ok && readable[sp.line][e] && t[e] >= 'A' && t[e] <= 'Z'
			e++
		}
		if ok {
			out = append(out, lexiconWord(sp.line, k, e, t, alt[sp.line], sc)...)
		}
		k = e
	}
	return out
}

// lexiconWord is decodeLexicon for the word in cells [s, e) of line t.
func lexiconWord(line, s, e int, t, alt []byte, sc [][nClass]float32) []Correction {
	n := e - s
	word := string(t[s:e])
	words := lexicon()[n]
	if n < lexiconMinLen || words[word] {
		return nil
	}
	most := 1
	if n >= 6 {
		most = 2
	}
	best := ""
	bestCost, secondCost := math.Inf(1), math.Inf(1)
	for w := range words {
		cost, changed := 0.0, 0
		for i := 0; i < n && changed <= most; i++ {
			if w[i] == word[i] {
				continue
			}
			changed++
			gap := float64(sc[s+i][strings.IndexByte(cell.Alphabet, word[i])] - sc[s+i][strings.IndexByte(cell.Alphabet, w[i])])
			if gap > lexiconGap {
				changed = most + 1
				break
			}
			cost += max(gap, 0)
		}
		if changed > most {
			continue
		}
		switch {
		case cost < bestCost:
			secondCost = bestCost
			best, bestCost = w, cost
		case cost < secondCost:
			secondCost = cost
		}
	}
	if best == "" || secondCost-bestCost < lexiconClearly {
		return nil
	}
	var out []Correction
	for i := 0; i < n; i++ {
		if best[i] != word[i] {
			out = append(out, Correction{Line: line, Pos: s + i, From: word[i], To: best[i], Field: FieldNames})
			alt[s+i] = word[i]
			t[s+i] = best[i]
		}
	}
	return out
}
