package branding

import (
	"math"
	"strconv"
	"strings"
)

// MinAccentContrast is the contrast an accent colour must have with white
// text: WCAG 2.x level AA for normal text (success criterion 1.4.3). The
// hosted pages write white text on accent-coloured buttons.
const MinAccentContrast = 4.5

// ParseAccentColour normalises "#RRGGBB" to lower case and checks it
// against white text. It returns the colour and no Problem, or the
// problem for the person who typed it; "" is accepted (the pages'
// default colour).
func ParseAccentColour(s string) (string, Problem) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", Problem{}
	}
	if len(s) != 7 || s[0] != '#' {
		return "", Problem{Code: "colour_format", Text: "must be a colour written #rrggbb"}
	}
	if _, err := strconv.ParseUint(s[1:], 16, 32); err != nil {
		return "", Problem{Code: "colour_format", Text: "must be a colour written #rrggbb"}
	}
	if c := ContrastWithWhite(s); c < MinAccentContrast {
		ratio := strconv.FormatFloat(math.Floor(c*100)/100, 'f', 2, 64)
		return "", Problem{Code: "colour_light", Arg: ratio,
			Text: "is too light: white text on it has a contrast of " + ratio + ":1, at least 4.5:1 is needed"}
	}
	return s, Problem{}
}

// ContrastWithWhite returns the WCAG 2.x contrast ratio of white against
// the colour "#rrggbb" (from 1 to 21). Hand-written: it is the standard's
// two formulas (relative luminance of sRGB, then (L1+0.05)/(L2+0.05)), and
// the colour libraries for Go do not carry them.
func ContrastWithWhite(hex string) float64 {
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		return 1
	}
	channel := func(shift uint) float64 {
		c := float64((v>>shift)&0xff) / 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*channel(16) + 0.7152*channel(8) + 0.0722*channel(0)
	return 1.05 / (l + 0.05)
}
