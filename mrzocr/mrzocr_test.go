package mrzocr

import (
	"context"
	"errors"
	"image"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread"
	"github.com/verifyd/verifyd/ocr"
)

// composeTD1 is a valid TD1 zone.
func composeTD1(t testing.TB) []string {
	t.Helper()
	lines, err := mrz.Compose(mrz.Fields{Format: mrz.TD1, DocumentCode: "I", IssuingState: "UTO", DocumentNumber: "D23145890",
		Surname: "ERIKSSON", GivenNames: "ANNA MARIA", Nationality: "UTO", Sex: "F",
		BirthDate: mrz.Date{Year: 1974, Month: time.August, Day: 12}, ExpiryDate: mrz.Date{Year: 2032, Month: time.April, Day: 15}})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// wordsAt lays texts out as an engine would report them: text i on line
// i, its words split at spaces, each character pitch pixels wide from
// x0, the characters the engine "missed" given as '_' (no word there).
func wordsAt(texts []string, x0, pitch int) []ocr.Word {
	var out []ocr.Word
	for li, s := range texts {
		start := -1
		flush := func(end int) {
			if start >= 0 {
				out = append(out, ocr.Word{Text: s[start:end], Conf: 0.9, Line: li + 1, Block: 1, Par: 1,
					Box: image.Rect(x0+start*pitch, 100+li*40, x0+end*pitch, 130+li*40)})
				start = -1
			}
		}
		for i := 0; i < len(s); i++ {
			if s[i] == '_' {
				flush(i)
				continue
			}
			if start < 0 {
				start = i
			}
		}
		flush(len(s))
	}
	return out
}

func TestAssembleRestoresFillers(t *testing.T) {
	lines := composeTD1(t)
	// The engine missed some of the name's trailing fillers and read
	// others as K and X.
	got := []string{
		lines[0],
		lines[1],
		"ERIKSSON<<ANNA<MARIA<<KK<X<___",
	}
	res, ok := assemble(textLines(wordsAt(got, 50, 24)), 0)
	if !ok {
		t.Fatalf("not read: %q", got)
	}
	if !slices.Equal(res.Lines, lines) {
		t.Fatalf("read %q, want %q", res.Lines, lines)
	}
	if res.Filled != 3 || res.Mapped != 3 || res.Letters != 0 {
		t.Errorf("filled %d, mapped %d; want 3, 3", res.Filled, res.Mapped)
	}
	// Fillers not read in a field a check digit covers are not restored:
	// a blank there may be a finger over characters.
	got[0] = lines[0][:15] + "_______________"
	if res, ok := assemble(textLines(wordsAt(got, 50, 24)), 0); ok {
		t.Fatalf("read %q with the optional data's blank cells filled", res.Lines)
	}
}

func TestAssembleNeverFillsCheckedData(t *testing.T) {
	lines := composeTD1(t)
	// Two characters of the document number not read: a filler there
	// would be a guess (and '<' has the check-digit value of '0').
	l0 := []byte(lines[0])
	l0[8], l0[9] = '_', '_'
	if _, ok := assemble(textLines(wordsAt([]string{string(l0), lines[1], lines[2]}, 50, 24)), 0); ok {
		t.Fatal("a reading with fillers invented inside the document number was accepted")
	}
	// A K inside the names (before their end) is a letter.
	l2 := "ERIKSSONK<ANNA<MARIA<<<<<<<<<<"
	res, ok := assemble(textLines(wordsAt([]string{lines[0], lines[1], l2}, 50, 24)), 0)
	if !ok || res.Lines[2] != l2 {
		t.Fatalf("read %q (%v), want the name line kept as %q", res.Lines, ok, l2)
	}
}

func TestAssembleRejectsUnverified(t *testing.T) {
	lines := composeTD1(t)
	l1 := []byte(lines[1])
	l1[3] = '0' + (l1[3]-'0'+1)%10 // the birth date misread
	if res, ok := assemble(textLines(wordsAt([]string{lines[0], string(l1), lines[2]}, 50, 24)), 0); ok {
		t.Fatalf("accepted %q, whose birth date's check digit fails", res.Lines)
	}
}

func TestAssembleResizesFillerRuns(t *testing.T) {
	lines := composeTD1(t)
	// One word spanning the whole line whose run of fillers the engine
	// read two too short: the box says 30 cells.
	short := "ERIKSSON<<ANNA<MARIA<<<<<<<<"
	ws := wordsAt([]string{lines[0], lines[1], short}, 50, 24)
	ws[len(ws)-1].Box.Max.X = 50 + 30*24
	res, ok := assemble(textLines(ws), 0)
	if !ok || !slices.Equal(res.Lines, lines) {
		t.Fatalf("read %q (%v), want %q", res.Lines, ok, lines)
	}
}

type fakeEngine struct{ words []ocr.Word }

func (f fakeEngine) Words(ctx context.Context, g *image.Gray, opt ocr.Options) ([]ocr.Word, error) {
	return f.words, nil
}

func TestReadWithoutEngine(t *testing.T) {
	_, err := Reader{}.Read(context.Background(), image.NewGray(image.Rect(0, 0, 100, 100)), 0, Zone{})
	if !errors.Is(err, ocr.ErrUnavailable) {
		t.Fatalf("err %v, want ocr.ErrUnavailable", err)
	}
	_, err = Reader{OCR: fakeEngine{}}.Read(context.Background(), image.NewGray(image.Rect(0, 0, 100, 100)), 0, Zone{})
	if !errors.Is(err, ErrNotRead) {
		t.Fatalf("err %v, want ErrNotRead", err)
	}
}

// TestReadMonospaced reads, with Tesseract, a passport's zone printed in
// Go Mono: a monospaced font that is not OCR-B, which mrzread, a
// template matcher for OCR-B, finds but does not read.
func TestReadMonospaced(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed")
	}
	lines, err := mrz.Compose(mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "FRA", DocumentNumber: "12AB34567",
		Surname: "DUBOIS", GivenNames: "MARIE CLAIRE", Nationality: "FRA", Sex: "F",
		BirthDate: mrz.Date{Year: 2009, Month: time.March, Day: 7}, ExpiryDate: mrz.Date{Year: 2031, Month: time.June, Day: 1}})
	if err != nil {
		t.Fatal(err)
	}
	g := renderMono(t, lines, 36)
	// Where mrzread finds the zone, as the service's combined reader
	// passes it on.
	first, err := mrzread.Read(g, 0)
	if err != nil || first.Valid {
		t.Fatalf("mrzread read %q (%v): the test needs a zone it finds but cannot read", first.Lines, err)
	}
	res, err := Reader{OCR: &ocr.Tesseract{}}.Read(context.Background(), g, 0, Zone{Found: true, Quad: first.Quad, Format: first.Format})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Lines, lines) {
		t.Fatalf("read %q, want %q", res.Lines, lines)
	}
}

func TestFillHoles(t *testing.T) {
	lines := composeTD1(t)
	first := slices.Clone(lines)
	first[2] = "ERIKSSON<<AN?A<MARIA<<<<<<<<<<" // mrzread could not read one letter
	z := Zone{Found: true, Format: mrz.TD1, Lines: first}
	// The engine's reading of the line, with two fillers read as K.
	read := textLines(wordsAt([]string{"", "", "ERIKSSON<<ANNA<MARIA<<<<<<KK<<"}, 50, 24))
	res, ok := fillHoles(z, read, 50, 24)
	if !ok || !slices.Equal(res.Lines, lines) || res.Filled != 1 {
		t.Fatalf("filled %q (%v, %d), want %q", res.Lines, ok, res.Filled, lines)
	}
	// A line that differs in three more cells is another line, or a
	// misreading: nothing is taken from it.
	read = textLines(wordsAt([]string{"", "", "ERIKSSON<<ANNA<MARIA<<<<<KKK<<"}, 50, 24))
	if res, ok := fillHoles(z, read, 50, 24); ok {
		t.Fatalf("filled %q from a line differing in three cells", res.Lines)
	}
	// A hole the engine read nothing in stays a hole.
	read = textLines(wordsAt([]string{"", "", "ERIKSSON<<AN_A<MARIA<<<<<<<<<<"}, 50, 24))
	if res, ok := fillHoles(z, read, 50, 24); ok {
		t.Fatalf("filled %q where the engine read nothing", res.Lines)
	}
}

// TestAssembleAnyWords feeds random words, boxes and grids: whatever the
// engine returns, the reader must not panic.
func TestAssembleAnyWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lines := composeTD1(t)
	for range 3000 {
		var ws []ocr.Word
		for range rng.IntN(8) {
			n := rng.IntN(50)
			b := make([]byte, n)
			for i := range b {
				b[i] = Alphabet[rng.IntN(len(Alphabet))]
			}
			x := rng.IntN(1200) - 100
			ws = append(ws, ocr.Word{Text: string(b), Line: rng.IntN(4), Box: image.Rect(x, rng.IntN(300), x+rng.IntN(1500), 0)})
		}
		tl := textLines(ws)
		assemble(tl, 0)
		z := Zone{Found: true, Format: mrz.TD1, Lines: []string{lines[0], "?" + lines[1][1:], lines[2]}}
		fillHoles(z, tl, float64(rng.IntN(200)-50), float64(rng.IntN(40)))
	}
}
