package mrzread

import (
	"strings"
	"testing"

	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/mrzread/internal/cell"
)

func TestStateCodes(t *testing.T) {
	for code, want := range map[string]bool{
		"CHE": true, "D<<": true, "UTO": true, "XXA": true, "RKS": true, "GBN": true,
		"<HE": false, "TTA": false, "DEU": true, "ZZZ": false, "ESQ": false,
	} {
		if got := stateCodes()[code]; got != want {
			t.Errorf("%q: %v, want %v", code, got, want)
		}
	}
}

// TestStatesKnown: a reading is sure of its states only when the issuing
// state and the nationality are both codes of a state.
func TestStatesKnown(t *testing.T) {
	td3 := func(issuer, nationality string) []string {
		return []string{"P<" + issuer + "HARRIS<<RUBY<<<<<<<<<<<<<<<<<<<<<<<<<<<",
			"Z3817889<1" + nationality + "6306209F3411126<<<<<<<<<<<<<<<0"}
	}
	for _, tc := range []struct {
		name   string
		format mrz.Format
		lines  []string
		want   bool
	}{
		{"both known", mrz.TD3, td3("AUS", "AUS"), true},
		{"Germany's D<<", mrz.TD3, td3("D<<", "D<<"), true},
		{"the issuer misread", mrz.TD3, td3("AWX", "AUS"), false},
		{"the nationality misread", mrz.TD3, td3("AUS", "AU5"), false},
		{"a TD1 card", mrz.TD1, []string{"IDFRAJUHA0VY250<<<<<<<<<<<<<<<", "7111239F3111297FRA<<<<<<<<<<<4", "GIRARD<<SOPHIE<<<<<<<<<<<<<<<<"}, true},
		{"a TD1 card's nationality misread", mrz.TD1, []string{"IDFRAJUHA0VY250<<<<<<<<<<<<<<<", "7111239F3111297FPA<<<<<<<<<<<4", "GIRARD<<SOPHIE<<<<<<<<<<<<<<<<"}, false},
		{"no lines", mrz.TD3, nil, false},
	} {
		r := Result{Format: tc.format, Lines: tc.lines}
		if got := r.StatesKnown(); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDecodeStates: a state code that is no state's is put back when one
// code differs from it in one character whose template matched nearly as
// well as the one read, and left as read otherwise.
func TestDecodeStates(t *testing.T) {
	const l0 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
	line2 := func(nat string) string { return "L898902C36" + nat + "7408122F1204159ZE184226B<<<<<10" }
	for _, tc := range []struct {
		name string
		nat  string
		// near scores characters at a position of the nationality close
		// to the one read (0.88 against 0.9).
		near map[int]string
		want string
	}{
		{"a C read as a filler", "<HE", map[int]string{0: "C"}, "CHE"},
		{"an I read as T", "TTA", map[int]string{0: "I"}, "ITA"},
		{"a C that matched poorly", "<HE", nil, "<HE"},
		{"a state's code as read", "BHR", map[int]string{0: "C"}, "BHR"},
		{"two codes as likely", "ESQ", map[int]string{2: "PT"}, "ESQ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, alt, _, conf, scores := reading([]string{l0, line2(tc.nat)})
			for k, cs := range tc.near {
				for _, c := range []byte(cs) {
					scores[1][10+k][strings.IndexByte(cell.Alphabet, c)] = 0.88
				}
			}
			for li := range conf {
				for k := range conf[li] {
					conf[li][k] = 0.9
				}
			}
			got := decodeStates(mrz.TD3, text, alt, scores, conf)
			if s := string(text[1][10:13]); s != tc.want {
				t.Fatalf("nationality %q, want %q (corrections %+v)", s, tc.want, got)
			}
			if tc.want == tc.nat {
				if len(got) != 0 {
					t.Fatalf("corrections %+v for a code left as read", got)
				}
				return
			}
			if len(got) != 1 || got[0].Field != FieldNationality || conf[1][got[0].Pos] > 0.5 {
				t.Fatalf("corrections %+v (confidence %.2f), want one of the nationality at most half confident", got, conf[1][10])
			}
		})
	}
}
