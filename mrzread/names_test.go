package mrzread

import (
	"slices"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

// TestDecodeNames reads TD1 name lines from made-up template scores: each
// cell's printed character scores 0.80 and the look-alike the reader saw
// scores rival (higher, where the glyph looked more like it).
func TestDecodeNames(t *testing.T) {
	tests := []struct {
		name    string
		printed string
		rivals  map[int][2]any // position: look-alike, its score
		want    string
	}{
		{"O read as Q at a word's end", "ROMERO<ALVAREZ<<CRISTINA", map[int][2]any{5: {byte('Q'), 0.83}}, "ROMERO<ALVAREZ<<CRISTINA"},
		{"O read as Q, confidently", "ROSSI<<ALESSANDRO", map[int][2]any{1: {byte('Q'), 0.86}}, "ROSSI<<ALESSANDRO"},
		{"O read as D twice", "YAMAMOTO<<SHOTA", map[int][2]any{5: {byte('D'), 0.82}, 7: {byte('D'), 0.82}}, "YAMAMOTO<<SHOTA"},
		{"E read as F", "SMITH<<EMILY", map[int][2]any{7: {byte('F'), 0.82}}, "SMITH<<EMILY"},
		{"a filler read as K", "KRAWCZYK<<LUKASZ", map[int][2]any{9: {byte('K'), 0.81}}, "KRAWCZYK<<LUKASZ"},
		// A clear glyph keeps its letter, however rare the spelling:
		// the O template lies beyond nameGap.
		{"a clear Q stays", "QASIM<<ALI", map[int][2]any{0: {byte('O'), 0.68}}, "QASIM<<ALI"},
		{"a clear D stays", "DNIPRO<<OLHA", map[int][2]any{0: {byte('O'), 0.66}}, "DNIPRO<<OLHA"},
		{"no rival, no change", "NGUYEN<<THI<MAI", nil, "NGUYEN<<THI<MAI"},
		// Two letters of context: "LD" and "DE" are common bigrams
		// (HILDE), but "HLD" is not; the bigram model alone read CHLDE
		// (independently generated photos, docs/accuracy.md).
		{"O read as D after HL", "WILSON<<CHLOE", map[int][2]any{11: {byte('D'), 0.81}}, "WILSON<<CHLOE"},
		// A glyph 0.09 clearer than its rival (0.094 on the photo) keeps its letter against
		// a prior that finds "EN<" likelier than "EW<": the bigram model
		// at full weight read MATTHEN.
		{"a clear W at a name's end stays", "JACKSON<<MATTHEW", map[int][2]any{15: {byte('N'), 0.71}}, "JACKSON<<MATTHEW"},
		// Fourteenth pass: where the glyphs tie, the words decide
		// (lexiconRun); the letter model alone reads ZDE (Czech ZDENEK)
		// and RIBETRO.
		{"O read as D in a short name", "MARTIN<<ZOE", map[int][2]any{9: {byte('D'), 0.82}}, "MARTIN<<ZOE"},
		{"I read as T", "RIBEIRO<<ANA", map[int][2]any{4: {byte('T'), 0.81}}, "RIBEIRO<<ANA"},
		{"a clear R of a name outside the list stays", "WARNER<<ANNA", map[int][2]any{2: {byte('G'), 0.74}}, "WARNER<<ANNA"},
		{"a clear D of a known name stays", "SATO<<ADI", map[int][2]any{7: {byte('O'), 0.79}}, "SATO<<ADI"},
		{"a clear S of a particle the lists lack stays", "DOS<SANTOS<<LARISSA", map[int][2]any{2: {byte('R'), 0.76}}, "DOS<SANTOS<<LARISSA"},
		// Given names are separated by one filler: a second double filler
		// followed by letters is no name field's (a soft photo's
		// KOC<<BURAK<HUESEYIN was decoded as KOC<<BURA<<HUESEYIN).
		{"a letter before a given name's filler is not a filler", "KOC<<BURAK<HUESEYIN", map[int][2]any{9: {byte('<'), 0.79}}, "KOC<<BURAK<HUESEYIN"},
		{"a filler before a given name's filler is not kept", "KOC<<BURAK<HUESEYIN", map[int][2]any{9: {byte('<'), 0.82}}, "KOC<<BURAK<HUESEYIN"},
		// The trailing filler is fillNames' to judge: a filler read as K
		// after it is no reason to read another filler as a letter.
		{"the trailing filler stays", "KHAN<<DEEPA", map[int][2]any{12: {byte('K'), 0.79}, 14: {byte('K'), 0.81}}, "KHAN<<DEEPA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := tt.printed + strings.Repeat("<", 30-len(tt.printed))
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
				scores[2][k][strings.IndexByte(cell.Alphabet, line[k])] = 0.80
				scored[2][k] = true
				if r, ok := tt.rivals[k]; ok {
					ch := r[0].(byte)
					scores[2][k][strings.IndexByte(cell.Alphabet, ch)] = float32(r[1].(float64))
					text[2][k] = ch // what the best template alone reads
				}
			}
			fixes := decodeNames(mrz.TD1, text, alt, scores, scored)
			if got := strings.TrimRight(string(text[2]), "<"); got != tt.want {
				t.Fatalf("read %q, want %q (corrections %+v)", got, tt.want, fixes)
			}
			if !strings.HasPrefix(tt.name, "a clear") && len(fixes) != len(tt.rivals) {
				t.Errorf("%d corrections reported, want one per look-alike (%d)", len(fixes), len(tt.rivals))
			}
			for _, f := range fixes {
				if f.Field != FieldNames || f.Line != 2 || alt[2][f.Pos] != f.From {
					t.Errorf("correction %+v: want field %q on line 2 with the replaced character as runner-up", f, FieldNames)
				}
			}
		})
	}
}

func TestSurnameConfidence(t *testing.T) {
	t.Parallel()
	conf := func(line string, low map[int]float64) []float64 {
		c := make([]float64, len(line))
		for i := range c {
			c[i] = 0.9
			if v, ok := low[i]; ok {
				c[i] = v
			}
		}
		return c
	}
	td1 := []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"}
	td3 := "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
	tests := []struct {
		name string
		r    Result
		want float64
	}{
		{"TD1, all sure", Result{Format: mrz.TD1, Lines: td1, Confidence: [][]float64{nil, nil, conf(td1[2], nil)}}, 0.9},
		{"TD1, a surname letter unsure", Result{Format: mrz.TD1, Lines: td1, Confidence: [][]float64{nil, nil, conf(td1[2], map[int]float64{3: 0.2})}}, 0.2},
		{"TD1, the separator unsure", Result{Format: mrz.TD1, Lines: td1, Confidence: [][]float64{nil, nil, conf(td1[2], map[int]float64{9: 0.3})}}, 0.3},
		{"TD1, a given name unsure", Result{Format: mrz.TD1, Lines: td1, Confidence: [][]float64{nil, nil, conf(td1[2], map[int]float64{12: 0.1})}}, 0.9},
		{"TD3, the header is not the surname", Result{Format: mrz.TD3, Lines: []string{td3, ""}, Confidence: [][]float64{conf(td3, map[int]float64{2: 0.1, 6: 0.5})}}, 0.5},
		{"no surname", Result{Format: mrz.TD3, Lines: []string{"P<UTO<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<", ""}, Confidence: [][]float64{conf(td3, nil)}}, 0},
		{"no reading", Result{Format: mrz.TD3}, 0},
	}
	for _, tt := range tests {
		if got := tt.r.SurnameConfidence(); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A correction counts against the surname only within it and its "<<".
func TestSurnameCorrected(t *testing.T) {
	t.Parallel()
	td1 := []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"}
	td3 := []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}
	tests := []struct {
		name string
		r    Result
		want bool
	}{
		{"TD1, none", Result{Format: mrz.TD1, Lines: td1}, false},
		{"TD1, a surname letter", Result{Format: mrz.TD1, Lines: td1, Corrections: []Correction{{Line: 2, Pos: 3, Field: FieldNames}}}, true},
		{"TD1, the second filler ending it", Result{Format: mrz.TD1, Lines: td1, Corrections: []Correction{{Line: 2, Pos: 9, Field: FieldNames}}}, true},
		{"TD1, a given name", Result{Format: mrz.TD1, Lines: td1, Corrections: []Correction{{Line: 2, Pos: 11, Field: FieldNames}}}, false},
		{"TD1, the number", Result{Format: mrz.TD1, Lines: td1, Corrections: []Correction{{Line: 0, Pos: 7, Field: "document_number"}}}, false},
		{"TD3, the issuing state", Result{Format: mrz.TD3, Lines: td3, Corrections: []Correction{{Line: 0, Pos: 3, Field: FieldHeader}}}, false},
		{"TD3, a surname letter", Result{Format: mrz.TD3, Lines: td3, Corrections: []Correction{{Line: 0, Pos: 12, Field: FieldNames}}}, true},
		{"TD3, a given name", Result{Format: mrz.TD3, Lines: td3, Corrections: []Correction{{Line: 0, Pos: 16, Field: FieldNames}}}, false},
		{"no reading", Result{Format: mrz.TD3, Corrections: []Correction{{Line: 0, Pos: 6}}}, false},
	}
	for _, tt := range tests {
		if got := tt.r.SurnameCorrected(); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFieldConfidence(t *testing.T) {
	t.Parallel()
	td1 := []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"}
	conf := func(low map[[2]int]float64) [][]float64 {
		out := make([][]float64, 3)
		for li, l := range td1 {
			out[li] = make([]float64, len(l))
			for k := range out[li] {
				out[li][k] = 0.9
				if v, ok := low[[2]int{li, k}]; ok {
					out[li][k] = v
				}
			}
		}
		return out
	}
	tests := []struct {
		name  string
		low   map[[2]int]float64
		field string
		want  float64
	}{
		{"number, all sure", nil, mrz.FieldDocumentNumber, 0.9},
		{"number, a digit unsure", map[[2]int]float64{{0, 8}: 0.3}, mrz.FieldDocumentNumber, 0.3},
		{"number, its check digit unsure", map[[2]int]float64{{0, 14}: 0.2}, mrz.FieldDocumentNumber, 0.2},
		{"number, the birth date unsure", map[[2]int]float64{{1, 2}: 0.1}, mrz.FieldDocumentNumber, 0.9},
		{"birth date, unsure", map[[2]int]float64{{1, 2}: 0.1}, mrz.FieldBirthDate, 0.1},
	}
	for _, tt := range tests {
		r := Result{Format: mrz.TD1, Lines: td1, Confidence: conf(tt.low)}
		if got := r.FieldConfidence(tt.field); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := (Result{Format: mrz.TD1}).FieldConfidence(mrz.FieldDocumentNumber); got != 0 {
		t.Errorf("no reading: got %v, want 0", got)
	}
}

// TestMergeNames: two valid readings of one zone that differ only in a
// letter of the name field keep the letter of the reading surer of it.
func TestMergeNames(t *testing.T) {
	const line2 = "CX799345<6CAN8710204F2809045<<<<<<<<<<<<<<04"
	reading := func(name string, k int, c float64, corr ...Correction) Result {
		conf := make([][]float64, 2)
		for li := range conf {
			conf[li] = make([]float64, 44)
			for i := range conf[li] {
				conf[li][i] = 0.9
			}
		}
		conf[0][k] = c
		return Result{Format: mrz.TD3, Valid: true, Lines: []string{name, line2}, Confidence: conf, Corrections: corr}
	}
	const zoe, zde = "P<CANMARTIN<<ZOE<<<<<<<<<<<<<<<<<<<<<<<<<<<<", "P<CANMARTIN<<ZDE<<<<<<<<<<<<<<<<<<<<<<<<<<<<"
	tests := []struct {
		name          string
		chosen, other Result
		want          string
	}{
		{"the other reading surer of the letter", reading(zde, 14, 0.57), reading(zoe, 14, 0.7), zoe},
		{"the chosen reading surer of the letter", reading(zde, 14, 0.7), reading(zoe, 14, 0.57), zde},
		{"the other's letter chosen by the name model", reading(zde, 14, 0.57), reading(zoe, 14, 0.7, Correction{Line: 0, Pos: 14, From: 'D', To: 'O', Field: FieldNames}), zde},
		{"the readings differ elsewhere too", reading(zde, 14, 0.57), func() Result {
			r := reading(zoe, 14, 0.7)
			r.Lines[1] = "CX79934S<6CAN8710204F2809045<<<<<<<<<<<<<<04"
			return r
		}(), zde},
		{"a filler against a letter", reading("P<CANMARTIN<<ZOE<<<<<<<<<<<<<<<<<<<<<<<<<<<<", 17, 0.3), reading("P<CANMARTIN<<ZOEK<<<<<<<<<<<<<<<<<<<<<<<<<<<", 17, 0.9), zoe},
	}
	for _, tt := range tests {
		if got := mergeNames(tt.chosen, tt.other).Lines[0]; got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

// BenchmarkDecodeNames times the name field's decoding of one TD3 line,
// trigrams and word list, with three letters tied with a look-alike:
// microseconds beside the cells' template matching (BenchmarkRead).
func BenchmarkDecodeNames(b *testing.B) {
	line := []byte("P<CANMARTIN<<ZOE<ANNE<MARIE<<<<<<<<<<<<<<<<<")
	rivals := map[int]byte{9: 'H', 14: 'D', 19: 'M'}
	scores := make([][][nClass]float32, 2)
	scored := make([][]bool, 2)
	for li := range scores {
		scores[li] = make([][nClass]float32, 44)
		scored[li] = make([]bool, 44)
	}
	for k := range 44 {
		for c := range scores[0][k] {
			scores[0][k][c] = 0.2
		}
		scores[0][k][strings.IndexByte(cell.Alphabet, line[k])] = 0.80
		if r, ok := rivals[k]; ok {
			scores[0][k][strings.IndexByte(cell.Alphabet, r)] = 0.81
		}
		scored[0][k] = true
	}
	nameWords() // built once per process, not per reading
	b.ResetTimer()
	for range b.N {
		text := [][]byte{slices.Clone(line), make([]byte, 44)}
		alt := [][]byte{make([]byte, 44), make([]byte, 44)}
		decodeNames(mrz.TD3, text, alt, scores, scored)
	}
}
