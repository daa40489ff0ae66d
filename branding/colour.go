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
// against white text. It returns the colour and "" or a problem for the
// person who typed it; "" is accepted (the pages' default colour).
func ParseAccentColour(s string) (string, string) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", ""
	}
	if len(s) != 7 || s[0] != '#' {
		return "", "must be a colour written #rrggbb"
	}
	if _, err := strconv.ParseUint(s[1:], 16, 32); err != nil {
		return "", "must be a colour written #rrggbb"
	}
	if c := ContrastWithWhite(s); c < MinAccentContrast {
		return "", "is too light: white text on it has a contrast of " +
			strconv.FormatFloat(math.Floor(c*100)/100, 'f', 2, 64) + ":1, at least 4.5:1 is needed"
	}
	return s, ""
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
