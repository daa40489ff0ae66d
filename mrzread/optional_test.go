package mrzread

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
)

// TestFillOptional restores the fillers of empty optional fields read as
// characters no check digit can tell from '<', alone or together, and
// leaves fields holding data as read.
func TestFillOptional(t *testing.T) {
	tests := []struct {
		name   string
		format mrz.Format
		lines  []string
		want   []string
		fixes  int
	}{
		{"TD3 empty personal number read with a K", mrz.TD3,
			[]string{"P<AUTMUSTER<<ANNA" + strings.Repeat("<", 27), "U7238296<1AUT6403164M2608293<<<<<<<<<<<<<K00"},
			[]string{"P<AUTMUSTER<<ANNA" + strings.Repeat("<", 27), "U7238296<1AUT6403164M2608293<<<<<<<<<<<<<<00"}, 1},
		{"TD1 empty optional data with K, A and 0", mrz.TD1,
			[]string{"I<TURF50C524490<<<<<<<<<<<<<<<", "0712073F3502066TUR<K<A<0<<<<<8", "YILMAZ<<AYSE<<<<<<<<<<<<<<<<<<"},
			[]string{"I<TURF50C524490<<<<<<<<<<<<<<<", "0712073F3502066TUR<<<<<<<<<<<8", "YILMAZ<<AYSE<<<<<<<<<<<<<<<<<<"}, 3},
		{"TD2 empty optional data", mrz.TD2,
			[]string{"I<FRADUPONT<<MARIE" + strings.Repeat("<", 18), "GJTZP5CN28FRA7108042M3210190<<<<<KK8"},
			[]string{"I<FRADUPONT<<MARIE" + strings.Repeat("<", 18), "GJTZP5CN28FRA7108042M3210190<<<<<<<8"}, 2},
		// Z counts 35: two of them change any sum by a multiple of ten.
		{"two empty fields' last fillers read as Z", mrz.TD1,
			[]string{"IDMEX5615326161<<<<<<<<<<<<<Z<", "7304073F3506123MEX<<<<<<<<<<Z2", "REYES<MARTINEZ<<LETICIA<<<<<<<"},
			[]string{"IDMEX5615326161<<<<<<<<<<<<<<<", "7304073F3506123MEX<<<<<<<<<<<2", "REYES<MARTINEZ<<LETICIA<<<<<<<"}, 2},
		// One Z that the composite check digit counts (7 with it, 2
		// without): it may be data, and stays.
		{"a lone character the checks count stays", mrz.TD1,
			[]string{"IDMEX5615326161<<<<<<<<<<<<<Z<", "7304073F3506123MEX<<<<<<<<<<<7", "REYES<MARTINEZ<<LETICIA<<<<<<<"},
			[]string{"IDMEX5615326161<<<<<<<<<<<<<Z<", "7304073F3506123MEX<<<<<<<<<<<7", "REYES<MARTINEZ<<LETICIA<<<<<<<"}, 0},
		// One Z the composite does not count (it verifies without it).
		{"a lone character the checks do not count", mrz.TD1,
			[]string{"IDMEX5615326161<<<<<<<<<<<<<Z<", "7304073F3506123MEX<<<<<<<<<<<2", "REYES<MARTINEZ<<LETICIA<<<<<<<"},
			[]string{"IDMEX5615326161<<<<<<<<<<<<<<<", "7304073F3506123MEX<<<<<<<<<<<2", "REYES<MARTINEZ<<LETICIA<<<<<<<"}, 1},
		// Two characters side by side are a run of data, checks or not.
		{"a run stays", mrz.TD1,
			[]string{"IDMEX5615326161<<<<<<<<<<<<<ZZ", "7304073F3506123MEX<<<<<<<<<<<2", "REYES<MARTINEZ<<LETICIA<<<<<<<"},
			[]string{"IDMEX5615326161<<<<<<<<<<<<<ZZ", "7304073F3506123MEX<<<<<<<<<<<2", "REYES<MARTINEZ<<LETICIA<<<<<<<"}, 0},
		// Data, even ending in a blind character, stays: the field does
		// not begin with a filler.
		{"data ending in K stays", mrz.TD1,
			[]string{"IDUKR592648851819920722<33099K", "9207226M2803076UKR<<<<<<<<<<<2", "OLIINYK<<TARAS<<<<<<<<<<<<<<<<"},
			[]string{"IDUKR592648851819920722<33099K", "9207226M2803076UKR<<<<<<<<<<<2", "OLIINYK<<TARAS<<<<<<<<<<<<<<<<"}, 0},
		// A field after a filler holding other characters may be data
		// misread at its start: left as read.
		{"other characters after a filler stay", mrz.TD1,
			[]string{"IDD<<T22000129<<<<12K<<<<<<<<<", "6408125F2702283D<<<<<<<<<<<<<4", "MUSTERMANN<<ERIKA<<<<<<<<<<<<<"},
			[]string{"IDD<<T22000129<<<<12K<<<<<<<<<", "6408125F2702283D<<<<<<<<<<<<<4", "MUSTERMANN<<ERIKA<<<<<<<<<<<<<"}, 0},
		// A document number that overflows into the optional data (a
		// filler where its check digit would be) leaves it alone.
		{"overflowing number", mrz.TD1,
			[]string{"IDBEL000590448<<<<K<<<<<<<<<<<", "8501014M2501014BEL<<<<<<<<<<<4", "PEETERS<<JAN<<<<<<<<<<<<<<<<<<"},
			[]string{"IDBEL000590448<<<<K<<<<<<<<<<<", "8501014M2501014BEL<<<<<<<<<<<4", "PEETERS<<JAN<<<<<<<<<<<<<<<<<<"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, alt, _, conf, _ := reading(tt.lines)
			for _, c := range conf {
				for i := range c {
					c[i] = 1 // so that the correction's lowering shows
				}
			}
			fixes := fillOptional(tt.format, text, alt, conf)
			for i, l := range text {
				if string(l) != tt.want[i] {
					t.Errorf("line %d: %s, want %s", i+1, l, tt.want[i])
				}
			}
			if len(fixes) != tt.fixes {
				t.Errorf("%d corrections (%+v), want %d", len(fixes), fixes, tt.fixes)
			}
			for _, f := range fixes {
				if f.To != '<' || f.Field != FieldOptional || alt[f.Line][f.Pos] != f.From || conf[f.Line][f.Pos] > 0.5 {
					t.Errorf("correction %+v: alt %q, confidence %.2f; want the read character as runner-up and at most half confident", f, alt[f.Line][f.Pos], conf[f.Line][f.Pos])
				}
			}
		})
	}
}
