package mrz

import (
	"strings"
	"unicode"
)

// TransliterateName converts a name (one of surname or given names, as
// printed in the visual zone or entered by a user) to its MRZ form, with
// words separated by single spaces — the form Parse returns. This lets a
// caller compare a visual-zone name with a parsed MRZ name.
//
// Letters are upper-cased and transliterated per the recommended Latin and
// Cyrillic tables of ICAO Doc 9303 Part 3 §6 (Ä→AE, Å→AA, Ö→OE, Ø→OE,
// Ü→UE, ß→SS, Þ→TH, other diacritics dropped; Ж→ZH, Х→KH, Щ→SHCH, ...;
// language-specific exceptions are not applied). Spaces, hyphens, commas
// and '<' separate words; apostrophes and full stops are omitted. Any other
// character (digits, other scripts) is a *FormatError.
func TransliterateName(s string) (string, error) {
	var b strings.Builder
	var prev rune
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r)
		case unicode.IsSpace(r) || strings.ContainsRune("-<,‐‑‒–—", r):
			b.WriteByte(' ')
		case strings.ContainsRune("'’‘`´ʼ.", r):
			// omitted
		case unicode.Is(unicode.Mn, r):
			// A combining mark after a base letter: diaeresis and ring
			// above follow the precomposed letters (A+¨ → AE, A+° → AA).
			p := unicode.ToUpper(prev)
			switch {
			case r == '\u0308' && (p == 'A' || p == 'O' || p == 'U'):
				b.WriteByte('E')
			case r == '\u030A' && p == 'A':
				b.WriteByte('A')
			}
		default:
			t, ok := translit[unicode.ToUpper(r)]
			if !ok {
				t, ok = translit[r]
			}
			if !ok {
				return "", formatErr("name %q: cannot transliterate %q", s, r)
			}
			b.WriteString(t)
		}
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " "), nil
}

// translit maps upper-case letters to their ICAO 9303 Part 3 recommended
// transliteration.
var translit = map[rune]string{
	// Latin-1 Supplement
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "AE", 'Å': "AA", 'Æ': "AE",
	'Ç': "C", 'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ì': "I", 'Í': "I",
	'Î': "I", 'Ï': "I", 'Ð': "D", 'Ñ': "N", 'Ò': "O", 'Ó': "O", 'Ô': "O",
	'Õ': "O", 'Ö': "OE", 'Ø': "OE", 'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "UE",
	'Ý': "Y", 'Þ': "TH", 'ß': "SS", 'ẞ': "SS", 'Ÿ': "Y",
	// Latin Extended-A
	'Ā': "A", 'Ă': "A", 'Ą': "A", 'Ć': "C", 'Ĉ': "C", 'Ċ': "C", 'Č': "C",
	'Ď': "D", 'Đ': "D", 'Ē': "E", 'Ĕ': "E", 'Ė': "E", 'Ę': "E", 'Ě': "E",
	'Ĝ': "G", 'Ğ': "G", 'Ġ': "G", 'Ģ': "G", 'Ĥ': "H", 'Ħ': "H", 'Ĩ': "I",
	'Ī': "I", 'Ĭ': "I", 'Į': "I", 'İ': "I", 'ı': "I", 'Ĳ': "IJ", 'Ĵ': "J",
	'Ķ': "K", 'ĸ': "K", 'Ĺ': "L", 'Ļ': "L", 'Ľ': "L", 'Ŀ': "L", 'Ł': "L",
	'Ń': "N", 'Ņ': "N", 'Ň': "N", 'Ŋ': "N", 'Ō': "O", 'Ŏ': "O", 'Ő': "O",
	'Œ': "OE", 'Ŕ': "R", 'Ŗ': "R", 'Ř': "R", 'Ś': "S", 'Ŝ': "S", 'Ş': "S",
	'Š': "S", 'Ţ': "T", 'Ť': "T", 'Ŧ': "T", 'Ũ': "U", 'Ū': "U", 'Ŭ': "U",
	'Ů': "U", 'Ű': "U", 'Ų': "U", 'Ŵ': "W", 'Ŷ': "Y", 'Ź': "Z", 'Ż': "Z",
	'Ž': "Z",
	// Latin Extended-B (Romanian comma below)
	'Ș': "S", 'Ț': "T",
	// Cyrillic
	'А': "A", 'Б': "B", 'В': "V", 'Г': "G", 'Ґ': "G", 'Д': "D", 'Ђ': "D",
	'Ѓ': "G", 'Е': "E", 'Ё': "E", 'Є': "IE", 'Ж': "ZH", 'З': "Z", 'Ѕ': "DZ",
	'И': "I", 'І': "I", 'Ї': "I", 'Й': "I", 'Ј': "J", 'К': "K", 'Л': "L",
	'Љ': "LJ", 'М': "M", 'Н': "N", 'Њ': "NJ", 'О': "O", 'П': "P", 'Р': "R",
	'С': "S", 'Т': "T", 'Ћ': "C", 'Ќ': "K", 'У': "U", 'Ў': "U", 'Ф': "F",
	'Х': "KH", 'Ц': "TS", 'Ч': "CH", 'Џ': "DZ", 'Ш': "SH", 'Щ': "SHCH",
	'Ъ': "IE", 'Ы': "Y", 'Ь': "", 'Э': "E", 'Ю': "IU", 'Я': "IA",
}
