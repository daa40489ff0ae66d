package mrzread

import (
	"strconv"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// td3Line2 composes a TD3 second line with valid check digits.
func td3Line2(number, birth, expiry, personal string) string {
	cd := func(s string) string { return strconv.Itoa(mrz.CheckDigit(s)) }
	personal += strings.Repeat("<", 14-len(personal))
	l := number + cd(number) + "POL" + birth + cd(birth) + "F" + expiry + cd(expiry) + personal + cd(personal)
	return l + cd(l[0:10]+l[13:20]+l[21:43])
}

// TestDecodeNumbers reads TD3 second lines from made-up template scores:
// each cell's printed character scores 0.80 and the look-alike the reader
// saw scores as given (higher, where the glyph looked more like it).
func TestDecodeNumbers(t *testing.T) {
	// 07310465123: 0 at positions 28 and 32 of the line, check weights
	// 7 and 3, so that reading both as O still verifies.
	personal := td3Line2("UL2753914", "071104", "281107", "07310465123")
	genuineO := td3Line2("XO1234567", "071104", "281107", "")
	// 99072999480: its 8 (position 37) read as S changes no check digit
	// (S counts 28).
	digits := td3Line2("UL2753914", "071104", "281107", "99072999480")
	tests := []struct {
		name    string
		printed string
		rivals  map[int][2]any // position: look-alike, its score
		// zeros is the score of O at the dates' zeros (0: as any other
		// class): how this printer's zeros look where only digits stand.
		zeros float64
		want  string
	}{
		{"a pair of 0 read as O in the personal number", personal, map[int][2]any{28: {byte('O'), 0.86}, 32: {byte('O'), 0.86}}, 0, personal},
		// Beyond numberGap the glyphs are O, however the field is written.
		{"a clear pair of O stays", personal, map[int][2]any{28: {byte('O'), 0.92}, 32: {byte('O'), 0.92}}, 0, personal[:28] + "O" + personal[29:32] + "O" + personal[33:]},
		// Unless the dates' zeros, which can only be zeros, score as O
		// too: this printer's zeros look like the templates' O.
		{"a clear pair of O, the dates' zeros alike", personal, map[int][2]any{28: {byte('O'), 0.92}, 32: {byte('O'), 0.92}}, 0.95, personal},
		{"a clear pair of O, the dates' zeros clear", personal, map[int][2]any{28: {byte('O'), 0.92}, 32: {byte('O'), 0.92}}, 0.70, personal[:28] + "O" + personal[29:32] + "O" + personal[33:]},
		// One swap alone would break the number's check digit.
		{"a genuine O stays", genuineO, map[int][2]any{1: {byte('0'), 0.78}}, 0.95, genuineO},
		{"no rival, no change", personal, nil, 0, personal},
		{"an 8 read as S among digits", digits, map[int][2]any{37: {byte('S'), 0.81}}, 0, digits},
		{"a clear S stays", digits, map[int][2]any{37: {byte('S'), 0.92}}, 0, digits[:37] + "S" + digits[38:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(tt.printed)
			text := [][]byte{[]byte("P<POLKOWALSKA<<EWA" + strings.Repeat("<", 26)), line}
			alt := [][]byte{make([]byte, 44), make([]byte, 44)}
			conf := [][]float64{make([]float64, 44), make([]float64, 44)}
			scores := make([][][nClass]float32, 2)
			for li := range scores {
				scores[li] = make([][nClass]float32, 44)
				for k := range scores[li] {
					for c := range scores[li][k] {
						scores[li][k][c] = 0.2
					}
					scores[li][k][strings.IndexByte(cell.Alphabet, text[li][k])] = 0.80
					conf[li][k] = 1
				}
			}
			for k := 13; k < 27 && tt.zeros > 0; k++ {
				if strings.IndexByte("nmt", classes[mrz.TD3][1][k]) >= 0 && line[k] == '0' {
					scores[1][k][strings.IndexByte(cell.Alphabet, 'O')] = float32(tt.zeros)
				}
			}
			for k, r := range tt.rivals {
				ch := r[0].(byte)
				scores[1][k][strings.IndexByte(cell.Alphabet, ch)] = float32(r[1].(float64))
				if r[1].(float64) > 0.80 {
					line[k] = ch // what the best template alone reads
				}
			}
			for ci := range checks[mrz.TD3] {
				if !checks[mrz.TD3][ci].verify(text) {
					t.Fatalf("the reading %s fails its %s check: the test needs one that verifies", line, checks[mrz.TD3][ci].name)
				}
			}
			fixes := decodeNumbers(mrz.TD3, text, alt, scores, conf)
			if got := string(text[1]); got != tt.want {
				t.Fatalf("read %s, want %s (corrections %+v)", got, tt.want, fixes)
			}
			for _, f := range fixes {
				if f.Line != 1 || alt[1][f.Pos] != f.From || f.Field != mrz.FieldPersonalNumber || conf[1][f.Pos] > 0.5 {
					t.Errorf("correction %+v: want the personal number on line 1, the replaced character as runner-up, at most half confident", f)
				}
			}
		})
	}
}
