package mrzread

import (
	_ "embed"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// The name field has no check digit, so a glyph read as its look-alike
// (O as Q or D, E as F, U as W) gives a valid reading of a wrong name:
// on independently rendered documents (another OCR-B rasterisation, a
// low-resolution print) most wrong MRZ lines left were names like
// ROMERQ, RQSSI, TAMAMDTD and LAVDIE, each with the right letter as the
// runner-up. decodeNames reads the field as OCR engines read words:
// it chooses, among the letters whose templates match each cell nearly
// as well as the best, the sequence that best explains both the glyphs
// and how people's names are spelled (a letter trigram model, backed
// off to bigrams, counted over the names of many languages,
// namegrams.go). A clear glyph keeps its letter however unusual the
// name: the prior decides only between templates within nameGap of each
// other.
const (
	// nameGap is how far below a cell's best template score a letter
	// may lie and still be considered. The reader calls a cell fully
	// confident at a margin of 0.06 (confidence); a glyph 0.10 behind
	// the best is not one a printer would print by mistake.
	nameGap = 0.10
	// nameTemp converts template scores into log-likelihoods: a margin
	// of nameTemp is one nat. At 0.025, a fully confident margin (0.06)
	// is 2.4 nats (11 to 1), and the prior's strongest objections —
	// "RQS" against "ROS", 5–6 nats — override margins up to about 0.14
	// only when both bigrams object.
	nameTemp = 0.025
	// nameSmooth is added to every bigram count (per million) so that
	// no spelling is impossible, only unlikely: a name from a language
	// the counts do not cover pays at most a few nats per letter.
	nameSmooth = 20
)

// nameLogProb[a][b] is log P(b follows a) in a name field, a and b
// indices into nameSymbols.
var nameLogProb = sync.OnceValue(func() *[27][27]float64 {
	var lp [27][27]float64
	for a, row := range nameBigramCounts {
		total := 0.0
		for _, c := range row {
			total += float64(c) + nameSmooth
		}
		for b, c := range row {
			lp[a][b] = math.Log((float64(c) + nameSmooth) / total)
		}
	}
	return &lp
})

// nameLogProb3[a][b][c] is log P(c follows a and b) in a name field: the
// trigram counts smoothed towards the bigram model by nameBackoff (a
// context seen rarely says little more than its last letter does). The
// bigram alone preferred CHLDE to CHLOE ("LD" and "DE" are common; "HLD"
// is not) and CONNDR to CONNOR on independently generated photos.
var nameLogProb3 = sync.OnceValue(func() *[27][27][27]float64 {
	lp2 := nameLogProb()
	var lp [27][27][27]float64
	for a := range nameTrigramCounts {
		for b, row := range nameTrigramCounts[a] {
			total := 0.0
			for _, c := range row {
				total += float64(c)
			}
			for c, n := range row {
				lp[a][b][c] = math.Log((float64(n) + nameBackoff*math.Exp(lp2[b][c])) / (total + nameBackoff))
			}
		}
	}
	return &lp
})

// nameWeight scales the prior's log-probabilities against the glyphs'
// evidence. At full weight the model overrode glyphs that were plainly
// the other letter: MATTHEW's W, 0.094 above N, was read MATTHEN because
// most of the locales counted spell no name "-HEW". At 0.7 such a glyph
// keeps its letter, and the look-alikes within a few hundredths of each
// other (O, Q and D; H, M and N) are still decided by the spelling. On
// the independent generator's seeds 6, 7 and 8 (709 MRZ lines) the
// trigram model read 663 lines exactly at full weight and 666 at 0.7 or
// 0.5, the bigram model 661 (docs/accuracy.md, tenth pass).
const nameWeight = 0.7

// nameBackoff is the weight, in counts per million, of the bigram model
// in a trigram's estimate: a context seen as often as this is trusted
// half.
const nameBackoff = 50

// nameSymbols is the order of nameBigramCounts' rows and columns.
const nameSymbols = "<ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// nameClass[i] is nameSymbols[i]'s index in the templates' alphabet.
var nameClass = func() (c [len(nameSymbols)]int) {
	for i := range c {
		c[i] = strings.IndexByte(cell.Alphabet, nameSymbols[i])
	}
	return c
}()

// decodeNames rereads the name field of text (format's span) from the
// cells' template scores with the name prior, changes the characters it
// reads otherwise, and returns those changes as corrections of the field
// (alt takes the character replaced: it is now the runner-up). Cells
// read as unreadable ('?') or not scored split the field into runs
// decoded on their own; a run that begins the field follows a filler.
func decodeNames(format mrz.Format, text, alt [][]byte, scores [][][nClass]float32, readable [][]bool) []Correction {
	sp, ok := nameSpans[format]
	if !ok || sp.line >= len(text) {
		return nil
	}
	t, sc := text[sp.line], scores[sp.line]
	var out []Correction
	for k := sp.start; k < sp.end; {
		if !readable[sp.line][k] {
			k++
			continue
		}
		e := k
		for e < sp.end && readable[sp.line][e] {
			e++
		}
		out = append(out, decodeRun(sp.line, k, e, k == sp.start, t, alt[sp.line], sc)...)
		out = append(out, lexiconRun(sp.line, k, e, sp.end, t, alt[sp.line], sc)...)
		k = e
	}
	out = append(out, oneSeparator(sp.line, sp.start, sp.end, t, alt[sp.line], sc, readable[sp.line])...)
	return netChanges(out)
}

// oneSeparator makes the name field's structure hold: the primary
// identifier, a double filler, the secondary identifier's names each
// after one filler, then fillers to the end (ICAO 9303). A double filler
// after the first, between two letters, is no name field's: the filler of
// the pair whose glyph is likeliest a letter (its best letter's template
// within nameGap of the filler's) is read as that letter. A soft photo's
// KOC<<BURAK<HUESEYIN was decoded as KOC<<BURA<<HUESEYIN, the K's
// template 0.01 ahead of the filler's and the spelling prior preferring
// the filler (independently generated photos, docs/accuracy.md).
func oneSeparator(line, s, e int, t, alt []byte, sc [][nClass]float32, readable []bool) []Correction {
	filler := strings.IndexByte(cell.Alphabet, '<')
	// gap is how far the filler's template lies above cell k's best
	// letter's, and that letter.
	gap := func(k int) (float32, byte) {
		var best float32 = -2
		var ch byte
		for _, c := range nameClass[1:] {
			if sc[k][c] > best {
				best, ch = sc[k][c], cell.Alphabet[c]
			}
		}
		return sc[k][filler] - best, ch
	}
	var out []Correction
	sep := -1
	for k := s; k+1 < e; k++ {
		if t[k] != '<' || t[k+1] != '<' {
			continue
		}
		if sep < 0 {
			sep = k
			k++
			continue
		}
		// Only a pair between two letters: three fillers begin the
		// trailing filler, and letters after it are fillNames' to judge
		// (misread fillers, mostly).
		if k+2 >= e || t[k+2] == '<' || t[k+2] == '?' || t[k-1] == '<' || !readable[k] || !readable[k+1] {
			continue
		}
		g0, c0 := gap(k)
		g1, c1 := gap(k + 1)
		at, g, ch := k, g0, c0
		if g1 < g0 {
			at, g, ch = k+1, g1, c1
		}
		if g > nameGap {
			continue
		}
		out = append(out, Correction{Line: line, Pos: at, From: t[at], To: ch, Field: FieldNames})
		alt[at] = t[at]
		t[at] = ch
		k++
	}
	return out
}

// netChanges merges the corrections of one position into one, from the
// character read to the last one written, and drops those that end
// where they began (a letter decodeRun changed and lexiconRun restored).
func netChanges(cs []Correction) []Correction {
	var out []Correction
	for _, c := range cs {
		i := slices.IndexFunc(out, func(o Correction) bool { return o.Line == c.Line && o.Pos == c.Pos })
		if i < 0 {
			out = append(out, c)
			continue
		}
		out[i].To = c.To
	}
	return slices.DeleteFunc(out, func(c Correction) bool { return c.From == c.To })
}

// decodeRun is the Viterbi search of decodeNames over cells [s, e),
// with the trigram model: a state is a cell's candidate with the one
// before it.
func decodeRun(line, s, e int, afterFiller bool, t, alt []byte, sc [][nClass]float32) []Correction {
	lp2, lp3 := nameLogProb(), nameLogProb3()
	type cand struct {
		sym  int     // index into nameSymbols; -1 for no known character
		emit float64 // log-likelihood of the glyph given the symbol
	}
	// cands[0] and cands[1] are the two characters before the run: the
	// fillers a field begins after, or nothing known.
	before := []cand{{-1, 0}}
	if afterFiller {
		before = []cand{{0, 0}}
	}
	cands := [][]cand{before, before}
	for k := s; k < e; k++ {
		best := float32(-2)
		for _, c := range nameClass {
			best = max(best, sc[k][c])
		}
		var cs []cand
		for i, c := range nameClass {
			v := sc[k][c]
			if best-v <= nameGap {
				cs = append(cs, cand{i, float64(v-best) / nameTemp})
			}
		}
		cands = append(cands, cs)
	}
	// prior is log P(c | a, b) as far as a and b are known.
	prior := func(a, b, c int) float64 {
		switch {
		case b < 0:
			return 0
		case a < 0:
			return nameWeight * lp2[b][c]
		}
		return nameWeight * lp3[a][b][c]
	}
	// score[j][p][c] is the best log-probability of a reading up to
	// cands[j] ending in candidate p of cands[j-1] and c of cands[j];
	// from[j][p][c] is the candidate of cands[j-2] before them.
	score := make([][][]float64, len(cands))
	from := make([][][]int, len(cands))
	score[1] = [][]float64{{0}}
	from[1] = [][]int{{0}}
	for j := 2; j < len(cands); j++ {
		score[j] = make([][]float64, len(cands[j-1]))
		from[j] = make([][]int, len(cands[j-1]))
		for p, pd := range cands[j-1] {
			score[j][p] = make([]float64, len(cands[j]))
			from[j][p] = make([]int, len(cands[j]))
			for c, cd := range cands[j] {
				score[j][p][c] = math.Inf(-1)
				for q, qd := range cands[j-2] {
					if v := score[j-1][q][p] + prior(qd.sym, pd.sym, cd.sym) + cd.emit; v > score[j][p][c] {
						score[j][p][c], from[j][p][c] = v, q
					}
				}
			}
		}
	}
	last := len(cands) - 1
	bp, bc := 0, 0
	for p := range score[last] {
		for c := range score[last][p] {
			if score[last][p][c] > score[last][bp][bc] {
				bp, bc = p, c
			}
		}
	}
	var out []Correction
	for j := last; j >= 2; j-- {
		k := s + j - 2
		if ch := nameSymbols[cands[j][bc].sym]; ch != t[k] {
			out = append(out, Correction{Line: line, Pos: k, From: t[k], To: ch, Field: FieldNames})
			alt[k] = t[k]
			t[k] = ch
		}
		bp, bc = from[j][bp][bc], bp
	}
	// Reported left to right.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// mergeNames returns chosen with each letter of its name field that other,
// a second valid reading of the same zone, reads as another letter taken
// from whichever of the two is surer of its glyph, when the readings
// differ nowhere else. The name field has no check digit to choose
// between them, and which reading is better overall (the direct one or
// the levelled band's; readTurns) says little about one cell: a bent
// passport's ZOE was read with a clear O directly and with D narrowly
// ahead of O from the levelled band, which was kept for its other cells
// (independently generated photos, docs/accuracy.md, fourteenth pass).
// Only cells whose letter is each reading's best template count: a
// letter the name model chose over the glyph (decodeNames) is no
// evidence of the glyph.
func mergeNames(chosen, other Result) Result {
	sp, ok := nameSpans[chosen.Format]
	if !ok || other.Format != chosen.Format || !chosen.Valid || !other.Valid || len(chosen.Lines) != len(other.Lines) ||
		len(chosen.Confidence) != len(chosen.Lines) || len(other.Confidence) != len(other.Lines) {
		return chosen
	}
	var diff []int
	for li := range chosen.Lines {
		a, b := chosen.Lines[li], other.Lines[li]
		if len(a) != len(b) {
			return chosen
		}
		for k := range len(a) {
			if a[k] == b[k] {
				continue
			}
			if li != sp.line || k < sp.start || k >= sp.end || a[k] == '<' || b[k] == '<' {
				return chosen
			}
			diff = append(diff, k)
		}
	}
	corrected := func(r Result, k int) bool {
		return slices.ContainsFunc(r.Corrections, func(c Correction) bool { return c.Line == sp.line && c.Pos == k })
	}
	line := []byte(chosen.Lines[sp.line])
	conf := slices.Clone(chosen.Confidence[sp.line])
	changed := false
	for _, k := range diff {
		if corrected(chosen, k) || corrected(other, k) || other.Confidence[sp.line][k] <= conf[k] {
			continue
		}
		line[k], conf[k], changed = other.Lines[sp.line][k], other.Confidence[sp.line][k], true
	}
	if !changed {
		return chosen
	}
	out := chosen
	out.Lines = slices.Clone(chosen.Lines)
	out.Lines[sp.line] = string(line)
	out.Confidence = slices.Clone(chosen.Confidence)
	out.Confidence[sp.line] = conf
	return out
}

// nameWords are the words of people's names (first and last names, split
// at spaces and hyphens) of @faker-js/faker's locales as an MRZ writes
// them, one per line: scripts/namegrams-generate writes them with the
// letter counts of namegrams.go.
//
//go:embed namewords.txt
var nameWordsText string

var nameWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for _, w := range nameParticles {
		words[w] = true
	}
	for _, w := range strings.Split(nameWordsText, "\n") {
		if w != "" {
			words[w] = true
		}
	}
	return words
})

// nameParticles are the particles of compound surnames (DOS SANTOS,
// TER HORST, BIN ISMAIL, DES ROCHES) that faker's lists lack, because
// they hold such surnames whole or not at all: a genuine Brazilian
// permit's DOS read as DOR, a word of the lists (independently generated
// photos, docs/accuracy.md, fourteenth pass). Those the lists hold (DE,
// DA, VAN, VON, DEL, …) need no entry.
var nameParticles = []string{"DAS", "DOS", "DES", "TER", "TEN", "BIN", "BINT", "BINTI", "IBN", "MC", "ST", "STE", "DEGLI",
	"ZU", "ZUR", "VOM", "VANDER", "VANDEN", "UIT", "OP", "AP", "AF", "AV", "BET", "BAT", "ULD", "OULD"}

const (
	// lexiconGap is how far below a cell's best template a letter may
	// score for lexiconRun to put it there: a near tie, which the glyph
	// does not decide (a low-resolution print's B and D differ by 0.003
	// on independently generated photos; a clearly printed R and G of
	// WARNER and WAGNER by far more).
	lexiconGap = 0.05
)

// lexiconRun changes a word of cells [s, e) of a name field that is no
// known name (nameWords) into the one known name, if any, that letters
// scoring within lexiconGap of their cells' best templates spell with at
// most two changes, as OCR engines check words against a
// dictionary. The letter model of decodeRun sees three letters at a
// time, and prefers ZDE to ZOE (Czech ZDENEK), DAPTISTE to BAPTISTE and
// RIBETRO to RIBEIRO where the glyphs tie (independently generated
// photos, docs/accuracy.md, fourteenth pass); the words themselves say
// which is a name. A word that is a known name, or that no such change
// makes one, or two that tie, or that reaches the field's end (cut
// short), stays as read: names outside the list are read as the glyphs
// and the letter model say.
func lexiconRun(line, s, e, fieldEnd int, t, alt []byte, sc [][nClass]float32) []Correction {
	words := nameWords()
	var out []Correction
	for k := s; k < e; {
		if t[k] == '<' {
			k++
			continue
		}
		end := k
		for end < e && t[end] != '<' {
			end++
		}
		// A word that fills the field to its end may be cut short.
		if end-k >= 2 && end < fieldEnd && !words[string(t[k:end])] {
			out = append(out, lexiconWord(line, k, end, t, alt, sc, words)...)
		}
		k = end
	}
	return out
}

// lexiconWord is lexiconRun for the word of cells [s, e).
func lexiconWord(line, s, e int, t, alt []byte, sc [][nClass]float32, words map[string]bool) []Correction {
	type sub struct {
		pos  int
		ch   byte
		cost float32
	}
	var subs []sub
	for k := s; k < e; k++ {
		best := float32(-2)
		for _, c := range nameClass[1:] {
			best = max(best, sc[k][c])
		}
		for i, c := range nameClass[1:] {
			if ch := nameSymbols[i+1]; ch != t[k] && best-sc[k][c] <= lexiconGap {
				subs = append(subs, sub{k, ch, best - sc[k][c]})
			}
		}
	}
	word := slices.Clone(t[s:e])
	var found []sub // the cheapest known name's changes
	bestCost, ties := float32(math.MaxFloat32), 0
	try := func(changes ...sub) {
		var cost float32
		for _, c := range changes {
			word[c.pos-s] = c.ch
			cost += c.cost
		}
		if words[string(word)] {
			switch {
			case cost < bestCost:
				found, bestCost, ties = slices.Clone(changes), cost, 1
			case cost == bestCost:
				ties++
			}
		}
		for _, c := range changes {
			word[c.pos-s] = t[c.pos]
		}
	}
	for i, a := range subs {
		try(a)
		for _, b := range subs[i+1:] {
			if b.pos != a.pos {
				try(a, b)
			}
		}
	}
	if found == nil || ties > 1 {
		return nil
	}
	var out []Correction
	for _, c := range found {
		out = append(out, Correction{Line: line, Pos: c.pos, From: t[c.pos], To: c.ch, Field: FieldNames})
		alt[c.pos] = t[c.pos]
		t[c.pos] = c.ch
	}
	return out
}
