package mrzread

import (
	"math"
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
		k = e
	}
	return out
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
