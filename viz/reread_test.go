package viz

import (
	"image"
	"testing"

	"github.com/verifyd/verifyd/mrz"
)

var rereadFields = mrz.Fields{Format: mrz.TD3, DocumentNumber: "L898902C3", Surname: "ERIKSSON",
	BirthDate: mrz.Date{Year: 1974, Month: 8, Day: 23}, ExpiryDate: mrz.Date{Year: 2030, Month: 6, Day: 11}}

// TestSpots: a birth date read without its year ("23 AUG", glare on an
// independently generated passport) is read again first where that piece
// was read, then under its label; an unread expiry date with only its
// label read, under the label; fields already found are not read again.
func TestSpots(t *testing.T) {
	z := NewZone(words("SURNAME", "ERIKSSON", "DATE OF BIRTH", "23 AUG", "DATE OF EXPIRY", "PASSPORT NO. L898902C3"), DMY)
	spots := z.Spots(rereadFields, Compare(z, rereadFields))
	piece := z.Lines[3].Box // "23 AUG"
	if len(spots) != 3 {
		t.Fatalf("%d spots, want 3: %+v", len(spots), spots)
	}
	if spots[0].Label || !piece.In(spots[0].Rect) || spots[0].Glyph != piece.Dy() {
		t.Errorf("first spot %+v, want the line %v holding the birth date's day and month", spots[0], piece)
	}
	birth, expiry := z.Lines[2].Words[2].Box, z.Lines[4].Words[2].Box
	if !spots[1].Label || !birth.In(spots[1].Rect) || spots[1].Rect.Max.Y < piece.Max.Y {
		t.Errorf("second spot %+v, want the label BIRTH %v and what lies below it", spots[1], birth)
	}
	if !spots[2].Label || !expiry.In(spots[2].Rect) {
		t.Errorf("third spot %+v, want the label EXPIRY %v", spots[2], expiry)
	}

	// Everything found: nothing to read again.
	full := NewZone(words("SURNAME", "ERIKSSON", "DATE OF BIRTH", "23 AUG 1974", "DATE OF EXPIRY", "11 JUN 2030", "PASSPORT NO. L898902C3"), DMY)
	if s := full.Spots(rereadFields, Compare(full, rereadFields)); len(s) != 0 {
		t.Errorf("spots on a page read in full: %+v", s)
	}
}

// TestRereadsOnlyConfirm: what a spot's new reading finds confirms a
// field when it is the MRZ's value, and never contradicts it, where the
// same words in the page's reading would.
func TestRereadsOnlyConfirm(t *testing.T) {
	page := words("SURNAME", "ERIKSSON", "DATE OF BIRTH", "23 AUG", "DATE OF EXPIRY", "11 JUN 2030", "PASSPORT NO.")
	z := NewZone(page, DMY)
	status := func(z Zone, name string) Status {
		for _, f := range Compare(z, rereadFields) {
			if f.Name == name {
				return f.Status
			}
		}
		t.Fatalf("no field %s", name)
		return ""
	}
	if s := status(z, "birth_date"); s != Unread {
		t.Fatalf("birth date before: %s", s)
	}
	tests := []struct {
		name, field string
		again       []string
		want        Status
	}{
		{"the MRZ's birth date, in full", "birth_date", []string{"DATE OF BIRTH", "23 AUG 1974"}, Match},
		{"a minor's birth date under the label", "birth_date", []string{"DATE OF BIRTH", "23 AUG 2011"}, Unread},
		{"the MRZ's number", "document_number", []string{"PASSPORT NO. L898902C3"}, Match},
		{"another number under the label", "document_number", []string{"PASSPORT NO. X123455K7"}, Unread},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := status(z.WithRereads(words(tt.again...), DMY), tt.field); got != tt.want {
				t.Errorf("%s after reading again: %s, want %s", tt.field, got, tt.want)
			}
			if tt.want == Unread {
				// The same words in the page's own reading contradict the MRZ.
				if got := status(NewZone(words(tt.again...), DMY), tt.field); got != Mismatch {
					t.Errorf("%s read on the page: %s, want %s", tt.field, got, Mismatch)
				}
			}
		})
	}
}

// TestSpotAmong: a spot is among others when three fifths of it, or of
// one of them, lies in the other.
func TestSpotAmong(t *testing.T) {
	read := []Spot{{Rect: image.Rect(0, 0, 100, 40)}, {Rect: image.Rect(0, 200, 400, 260)}}
	tests := []struct {
		name string
		rect image.Rectangle
		want bool
	}{
		{"the same place", image.Rect(0, 0, 100, 40), true},
		{"moved by a fifth", image.Rect(20, 0, 120, 40), true},
		{"moved by half", image.Rect(50, 0, 150, 40), false},
		{"inside a larger one", image.Rect(100, 210, 200, 250), true},
		{"holding a smaller one", image.Rect(-10, -10, 300, 100), true},
		{"elsewhere", image.Rect(0, 100, 100, 140), false},
	}
	for _, tt := range tests {
		if got := (Spot{Rect: tt.rect}).Among(read); got != tt.want {
			t.Errorf("%s: Among = %v, want %v", tt.name, got, tt.want)
		}
	}
	if (Spot{Rect: image.Rect(0, 0, 100, 40)}).Among(nil) {
		t.Error("among no spots")
	}
}
