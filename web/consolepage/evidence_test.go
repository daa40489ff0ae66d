package consolepage

import "testing"

// TestEvidenceText: evidence shows as the check wrote it; structured values
// as JSON without HTML escapes (an MRZ is full of <).
func TestEvidenceText(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{"P<UTOERIKSSON<<ANNA", "P<UTOERIKSSON<<ANNA"},
		{[]any{"IDD<<T220001293<<<<<<<<<<<<<<<", "6408125<2010315D<<<<<<<<<<<<<4"}, `["IDD<<T220001293<<<<<<<<<<<<<<<","6408125<2010315D<<<<<<<<<<<<<4"]`},
		{map[string]any{"a&b": 1.5}, `{"a&b":1.5}`},
		{nil, "—"},
		{true, "true"},
	} {
		if got := evidenceText(c.in); got != c.want {
			t.Errorf("evidenceText(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
