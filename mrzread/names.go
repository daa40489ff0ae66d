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
// and how people's names are spelled (a letter bigram model counted over
// the names of many languages, namegrams.go). A clear glyph keeps its
// letter however unusual the name: the prior decides only between
// templates within nameGap of each other.
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
	lp := nameLogProb()
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
		out = append(out, decodeRun(sp.line, k, e, k == sp.start, t, alt[sp.line], sc, lp)...)
		k = e
	}
	return out
}

// decodeRun is the Viterbi search of decodeNames over cells [s, e).
func decodeRun(line, s, e int, afterFiller bool, t, alt []byte, sc [][nClass]float32, lp *[27][27]float64) []Correction {
	type cand struct {
		sym  int     // index into nameSymbols
		emit float64 // log-likelihood of the glyph given the symbol
	}
	cands := make([][]cand, e-s)
	for k := s; k < e; k++ {
		best := float32(-2)
		for _, c := range nameClass {
			best = max(best, sc[k][c])
		}
		for i, c := range nameClass {
			v := sc[k][c]
			if best-v <= nameGap {
				cands[k-s] = append(cands[k-s], cand{i, float64(v-best) / nameTemp})
			}
		}
	}
	// score[j][c] is the best log-probability of a reading of cells
	// s..s+j ending in candidate c; from[j][c] the candidate before it.
	score := make([][]float64, len(cands))
	from := make([][]int, len(cands))
	for j, cs := range cands {
		score[j] = make([]float64, len(cs))
		from[j] = make([]int, len(cs))
		for c, cd := range cs {
			switch {
			case j == 0 && afterFiller:
				score[j][c] = cd.emit + lp[0][cd.sym]
			case j == 0:
				score[j][c] = cd.emit
			default:
				score[j][c] = math.Inf(-1)
				for p, pd := range cands[j-1] {
					if v := score[j-1][p] + lp[pd.sym][cd.sym] + cd.emit; v > score[j][c] {
						score[j][c], from[j][c] = v, p
					}
				}
			}
		}
	}
	last := len(cands) - 1
	c := 0
	for i := range score[last] {
		if score[last][i] > score[last][c] {
			c = i
		}
	}
	var out []Correction
	for j := last; j >= 0; j-- {
		k := s + j
		if ch := nameSymbols[cands[j][c].sym]; ch != t[k] {
			out = append(out, Correction{Line: line, Pos: k, From: t[k], To: ch, Field: FieldNames})
			alt[k] = t[k]
			t[k] = ch
		}
		c = from[j][c]
	}
	// Reported left to right.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
