package mrzread

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// TestDecodeLexicon reads TD1 name lines from made-up template scores:
// each cell's character read scores 0.85, and the letters listed at a
// position score as given.
func TestDecodeLexicon(t *testing.T) {
	tests := []struct {
		name  string
		read  string
		other map[int]map[byte]float32 // position: letter: its score
		want  string
	}{
		// Found on independently generated photos: YEREMA for VERENA,
		// each right letter a near rival.
		{"two near rivals spell a name", "BERGER<<YEREMA", map[int]map[byte]float32{8: {'V': 0.78}, 12: {'N': 0.77}}, "BERGER<<VERENA"},
		{"one near rival spells a name", "MCREAU<<MARIE", map[int]map[byte]float32{1: {'O': 0.76}}, "MOREAU<<MARIE"},
		// The lexicon lacks JUERGEN; its U, 0.13 clearer than O, stays.
		{"a clear glyph keeps its letter", "ZIMMERMANN<<LEON<JUERGEN", map[int]map[byte]float32{19: {'O': 0.72}}, "ZIMMERMANN<<LEON<JUERGEN"},
		{"a lexicon word is not changed", "ROSSI<<MARCO", map[int]map[byte]float32{11: {'Q': 0.84}, 10: {'I': 0.84}}, "ROSSI<<MARCO"},
		// GALA and CARA are as near: the glyphs do not say which.
		{"two lexicon words as near", "ROSSI<<CALA", map[int]map[byte]float32{7: {'G': 0.83}, 9: {'R': 0.83}}, "ROSSI<<CALA"},
		{"three changes are too many", "YAGHEB<<ANNA", map[int]map[byte]float32{0: {'W': 0.84}, 3: {'N': 0.84}, 5: {'R': 0.84}}, "YAGHEB<<ANNA"},
		{"a short word is left alone", "LI<<ANM", map[int]map[byte]float32{6: {'N': 0.84}}, "LI<<ANM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := tt.read + strings.Repeat("<", 30-len(tt.read))
			text := [][]byte{make([]byte, 30), make([]byte, 30), []byte(line)}
			alt := [][]byte{make([]byte, 30), make([]byte, 30), make([]byte, 30)}
			scores := make([][][nClass]float32, 3)
			scored := make([][]bool, 3)
			for li := range scores {
				scores[li] = make([][nClass]float32, 30)
				scored[li] = make([]bool, 30)
			}
			for k := 0; k < 30; k++ {
				for c := range scores[2][k] {
					scores[2][k][c] = 0.2
				}
				scores[2][k][strings.IndexByte(cell.Alphabet, line[k])] = 0.85
				for ch, v := range tt.other[k] {
					scores[2][k][strings.IndexByte(cell.Alphabet, ch)] = v
				}
				scored[2][k] = true
			}
			fixes := decodeLexicon(mrz.TD1, text, alt, scores, scored)
			if got := strings.TrimRight(string(text[2]), "<"); got != tt.want {
				t.Fatalf("read %q, want %q (corrections %+v)", got, tt.want, fixes)
			}
			changed := 0
			for k := range tt.read {
				if tt.read[k] != tt.want[k] {
					changed++
				}
			}
			if len(fixes) != changed {
				t.Errorf("%d corrections reported, want %d", len(fixes), changed)
			}
			for _, f := range fixes {
				if f.Field != FieldNames || f.Line != 2 || alt[2][f.Pos] != f.From || text[2][f.Pos] != f.To {
					t.Errorf("correction %+v: want field %q on line 2 with the replaced letter as runner-up", f, FieldNames)
				}
			}
		})
	}
}
