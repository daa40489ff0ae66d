package mrz

import (
	"fmt"
	"strings"
)

// Compose renders f as MRZ lines with all check digits.
//
// Names are transliterated with TransliterateName (upper-case A–Z only;
// spaces and hyphens become '<'; apostrophes are dropped), surname and given
// names are separated by "<<" and the result is truncated to fit the name
// field (see nameField). Codes, document number and optional data are
// upper-cased and must then consist of A–Z, 0–9 (and '<' inside optional
// data). Document numbers longer than 9 characters use the ICAO overflow
// convention: '<' in the check digit position, the remaining characters and
// the check digit at the start of the optional data field, then a filler.
// Dates are written as YYMMDD; Raw* fields are ignored. Sex "" or "X" is
// written '<'. Invalid fields give a *FormatError.
func Compose(f Fields) ([]string, error) {
	w := f.Format.Width()
	if w == 0 {
		return nil, formatErr("unknown format %v", f.Format)
	}
	code, err := composeDocCode(f.DocumentCode)
	if err != nil {
		return nil, err
	}
	state, err := composeAlphaCode(f.IssuingState, "issuing state")
	if err != nil {
		return nil, err
	}
	nat, err := composeAlphaCode(f.Nationality, "nationality")
	if err != nil {
		return nil, err
	}
	birth, err := composeDate(f.BirthDate, "birth date")
	if err != nil {
		return nil, err
	}
	expiry, err := composeDate(f.ExpiryDate, "expiry date")
	if err != nil {
		return nil, err
	}
	var sx string
	switch strings.ToUpper(f.Sex) {
	case "M", "F":
		sx = strings.ToUpper(f.Sex)
	case "", "X", "<":
		sx = "<"
	default:
		return nil, formatErr("sex %q is not M, F or X", f.Sex)
	}
	number := strings.ToUpper(f.DocumentNumber)
	if number == "" {
		return nil, formatErr("document number is empty")
	}
	for i := 0; i < len(number); i++ {
		if !isLetter(number[i]) && !isDigit(number[i]) {
			return nil, formatErr("document number %q contains %q", f.DocumentNumber, rune(number[i]))
		}
	}
	opt1, err := composeOptional(f.OptionalData1, "optional data 1")
	if err != nil {
		return nil, err
	}
	opt2, err := composeOptional(f.OptionalData2, "optional data 2")
	if err != nil {
		return nil, err
	}
	if opt2 != "" && f.Format != TD1 {
		return nil, formatErr("optional data 2 exists only in TD1")
	}
	surname, err := TransliterateName(f.Surname)
	if err != nil {
		return nil, err
	}
	if surname == "" {
		return nil, formatErr("surname is empty (a single name is written as the surname)")
	}
	given, err := TransliterateName(f.GivenNames)
	if err != nil {
		return nil, err
	}

	switch f.Format {
	case TD1:
		docField, check, optField, err := composeDocNumber(number, opt1, 15, "optional data 1")
		if err != nil {
			return nil, err
		}
		if len(opt2) > 11 {
			return nil, formatErr("optional data 2 %q is longer than 11 characters", opt2)
		}
		l1 := code + state + docField + check + optField
		l2 := birth + digit(CheckDigit(birth)) + sx + expiry + digit(CheckDigit(expiry)) + nat + pad(opt2, 11)
		l2 += digit(CheckDigit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]))
		l3, _ := nameField(surname, given, 30)
		return []string{l1, l2, l3}, nil
	default: // TD2, TD3
		optWidth := w - 1 - 28
		what := "optional data 1"
		if f.Format == TD3 {
			optWidth = 14
			what = "personal number"
		}
		docField, check, optField, err := composeDocNumber(number, opt1, optWidth, what)
		if err != nil {
			return nil, err
		}
		nameStr, _ := nameField(surname, given, w-5)
		l1 := code + state + nameStr
		l2 := docField + check + nat + birth + digit(CheckDigit(birth)) + sx + expiry + digit(CheckDigit(expiry)) + optField
		if f.Format == TD3 {
			if trimFiller(optField) == "" {
				l2 += "<"
			} else {
				l2 += digit(CheckDigit(optField))
			}
		}
		l2 += digit(CheckDigit(l2[0:10] + l2[13:20] + l2[21:w-1]))
		return []string{l1, l2}, nil
	}
}

// composeDocNumber lays out the document number and the optional data
// field that follows it (width optWidth).
func composeDocNumber(number, opt string, optWidth int, what string) (docField, check, optField string, err error) {
	if len(number) <= 9 {
		if len(opt) > optWidth {
			return "", "", "", formatErr("%s %q is longer than %d characters", what, opt, optWidth)
		}
		docField = pad(number, 9)
		return docField, digit(CheckDigit(docField)), pad(opt, optWidth), nil
	}
	optField = number[9:] + digit(CheckDigit(number))
	if opt != "" {
		optField += "<" + opt
	}
	if len(optField) > optWidth {
		return "", "", "", formatErr("document number %q (%d characters) and %s %q do not fit: the overflow, its check digit, a filler and the optional data take %d of %d characters",
			number, len(number), what, opt, len(optField), optWidth)
	}
	return number[:9], "<", pad(optField, optWidth), nil
}

func composeDocCode(c string) (string, error) {
	c = trimFiller(strings.ToUpper(c))
	if len(c) < 1 || len(c) > 2 || !isLetter(c[0]) || (len(c) == 2 && !isLetter(c[1]) && !(c[1] >= '0' && c[1] <= '9')) {
		return "", formatErr("document code %q is not a letter followed by an optional letter or digit", c)
	}
	if c[0] == 'V' {
		return "", formatErr("document code %q: machine-readable visas are not supported", c)
	}
	return pad(c, 2), nil
}

func composeAlphaCode(c, what string) (string, error) {
	c = trimFiller(strings.ToUpper(c))
	if len(c) < 1 || len(c) > 3 {
		return "", formatErr("%s %q is not 1–3 letters", what, c)
	}
	for i := 0; i < len(c); i++ {
		if !isLetter(c[i]) {
			return "", formatErr("%s %q is not 1–3 letters", what, c)
		}
	}
	return pad(c, 3), nil
}

func composeDate(d Date, what string) (string, error) {
	if !d.Valid() {
		return "", formatErr("%s %v is not a valid date", what, d)
	}
	return fmt.Sprintf("%02d%02d%02d", d.Year%100, int(d.Month), d.Day), nil
}

func composeOptional(s, what string) (string, error) {
	s = trimFiller(strings.ToUpper(s))
	for i := 0; i < len(s); i++ {
		if !isMRZChar(s[i]) {
			return "", formatErr("%s %q contains %q", what, s, rune(s[i]))
		}
	}
	return s, nil
}

func digit(n int) string { return string(rune('0' + n)) }

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat("<", n-len(s))
}

// nameField renders transliterated names (words separated by spaces) into
// a name field of width w and reports whether it had to truncate:
//
//   - If SURNAME<<GIVEN<NAMES fits, it is used as is.
//   - Otherwise, if the surname, the "<<" separator and at least one
//     character of the given names fit, the given names are cut at the end
//     of the field.
//   - Otherwise the surname is cut to leave room for "<<" and the initial of
//     the first given name (or cut at the field end if there are none).
//
// A cut never leaves a trailing filler, so the last name character is a
// letter, as ICAO requires.
func nameField(surname, given string, w int) (string, bool) {
	s := strings.ReplaceAll(surname, " ", "<")
	g := strings.ReplaceAll(given, " ", "<")
	full := s
	if g != "" {
		full += "<<" + g
	}
	switch {
	case len(full) <= w:
		return pad(full, w), false
	case g == "":
		return pad(trimFiller(s[:w]), w), true
	case len(s)+3 <= w:
		return pad(trimFiller(full[:w]), w), true
	default:
		return pad(trimFiller(s[:w-3])+"<<"+g[:1], w), true
	}
}
