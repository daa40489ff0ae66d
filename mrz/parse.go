package mrz

import (
	"strings"
	"time"
)

// Parse reads MRZ lines (already OCR'd, exact width) and returns the fields.
// It detects the format from line count and width.
//
// If the zone is well formed but check digits do not verify, Parse returns
// the parsed fields together with a *CheckError listing every failed field
// (document number, birth date, expiry date, TD3 personal number,
// composite). A check digit position holding something other than the
// expected digit is a failed check, not a format error.
//
// Malformed input — wrong line count or width, characters outside A–Z0–9<,
// non-digits in a date, impossible dates, a sex other than M/F/</X,
// non-letters in codes or names, an empty name — returns zero Fields and a
// *FormatError.
func Parse(lines []string, opts ...Option) (Fields, error) {
	o := options{now: time.Now()}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	format, err := detect(lines)
	if err != nil {
		return Fields{}, err
	}
	for i, l := range lines {
		for j := 0; j < len(l); j++ {
			if !isMRZChar(l[j]) {
				return Fields{}, formatErr("line %d, position %d: character %q is not A–Z, 0–9 or '<'", i+1, j+1, rune(l[j]))
			}
		}
	}
	p := &parser{now: o.now}
	var f Fields
	switch format {
	case TD1:
		f, err = p.td1(lines[0], lines[1], lines[2])
	case TD2:
		f, err = p.td23(TD2, lines[0], lines[1])
	case TD3:
		f, err = p.td23(TD3, lines[0], lines[1])
	}
	if err != nil {
		return Fields{}, err
	}
	if len(p.failed) > 0 {
		return f, &CheckError{Failed: p.failed}
	}
	return f, nil
}

func detect(lines []string) (Format, error) {
	var format Format
	switch {
	case len(lines) == 3:
		format = TD1
	case len(lines) == 2 && len(lines[0]) == TD2.Width():
		format = TD2
	case len(lines) == 2 && len(lines[0]) == TD3.Width():
		format = TD3
	case len(lines) == 2:
		return 0, formatErr("line 1 has %d characters; a 2-line MRZ has 36 (TD2) or 44 (TD3)", len(lines[0]))
	default:
		return 0, formatErr("%d lines; an MRZ has 3 (TD1) or 2 (TD2, TD3)", len(lines))
	}
	for i, l := range lines {
		if len(l) != format.Width() {
			return 0, formatErr("line %d has %d characters, want %d for %v", i+1, len(l), format.Width(), format)
		}
	}
	return format, nil
}

func isMRZChar(c byte) bool {
	return c == '<' || ('0' <= c && c <= '9') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLetter(c byte) bool { return 'A' <= c && c <= 'Z' }

func trimFiller(s string) string { return strings.TrimRight(s, "<") }

// checkOK reports whether the check character c is the check digit of s.
func checkOK(s string, c byte) bool {
	return isDigit(c) && int(c-'0') == CheckDigit(s)
}

type parser struct {
	now    time.Time
	failed []string
}

func (p *parser) fail(field string) { p.failed = append(p.failed, field) }

func (p *parser) td1(l1, l2, l3 string) (Fields, error) {
	f := Fields{Format: TD1}
	var err error
	if f.DocumentCode, f.IssuingState, err = header(l1); err != nil {
		return Fields{}, err
	}
	if f.Nationality, err = alphaCode(l2[15:18], "nationality", 2, 16); err != nil {
		return Fields{}, err
	}
	if f.Sex, err = sex(l2[7], 2, 8); err != nil {
		return Fields{}, err
	}
	if f.BirthDate, err = p.date(l2[0:6], false, 2, 1); err != nil {
		return Fields{}, err
	}
	if f.ExpiryDate, err = p.date(l2[8:14], true, 2, 9); err != nil {
		return Fields{}, err
	}
	if f.Surname, f.GivenNames, err = name(l3, 3, 1); err != nil {
		return Fields{}, err
	}
	f.RawBirthDate, f.RawExpiryDate = l2[0:6], l2[8:14]
	f.OptionalData2 = trimFiller(l2[18:29])

	var docOK bool
	f.DocumentNumber, f.OptionalData1, docOK = documentNumber(l1[5:14], l1[14], l1[15:30])
	if !docOK {
		p.fail(FieldDocumentNumber)
	}
	if !checkOK(l2[0:6], l2[6]) {
		p.fail(FieldBirthDate)
	}
	if !checkOK(l2[8:14], l2[14]) {
		p.fail(FieldExpiryDate)
	}
	if !checkOK(l1[5:30]+l2[0:7]+l2[8:15]+l2[18:29], l2[29]) {
		p.fail(FieldComposite)
	}
	return f, nil
}

// td23 parses the two-line formats, which share the layout of line 2 up to
// the optional data: docnum(9) check nationality(3) birth(6) check sex
// expiry(6) check optional ... composite.
func (p *parser) td23(format Format, l1, l2 string) (Fields, error) {
	f := Fields{Format: format}
	w := format.Width()
	var err error
	if f.DocumentCode, f.IssuingState, err = header(l1); err != nil {
		return Fields{}, err
	}
	if f.Surname, f.GivenNames, err = name(l1[5:], 1, 6); err != nil {
		return Fields{}, err
	}
	if f.Nationality, err = alphaCode(l2[10:13], "nationality", 2, 11); err != nil {
		return Fields{}, err
	}
	if f.BirthDate, err = p.date(l2[13:19], false, 2, 14); err != nil {
		return Fields{}, err
	}
	if f.Sex, err = sex(l2[20], 2, 21); err != nil {
		return Fields{}, err
	}
	if f.ExpiryDate, err = p.date(l2[21:27], true, 2, 22); err != nil {
		return Fields{}, err
	}
	f.RawBirthDate, f.RawExpiryDate = l2[13:19], l2[21:27]

	optEnd := w - 1 // TD2: optional data runs up to the composite check digit
	if format == TD3 {
		optEnd = w - 2 // TD3: personal number, its check digit, composite
	}
	var docOK bool
	f.DocumentNumber, f.OptionalData1, docOK = documentNumber(l2[0:9], l2[9], l2[28:optEnd])
	if !docOK {
		p.fail(FieldDocumentNumber)
	}
	if !checkOK(l2[13:19], l2[19]) {
		p.fail(FieldBirthDate)
	}
	if !checkOK(l2[21:27], l2[27]) {
		p.fail(FieldExpiryDate)
	}
	if format == TD3 {
		personal, c := l2[28:42], l2[42]
		ok := checkOK(personal, c)
		if trimFiller(personal) == "" {
			ok = c == '<' || c == '0' // check digit may be a filler when the field is empty
		}
		if !ok {
			p.fail(FieldPersonalNumber)
		}
	}
	if !checkOK(l2[0:10]+l2[13:20]+l2[21:w-1], l2[w-1]) {
		p.fail(FieldComposite)
	}
	return f, nil
}

// documentNumber extracts the document number from its 9-character field,
// check character and the optional data field that follows it. A filler in
// the check position marks a long document number (ICAO 9303 Parts 4–6):
// its remaining characters and then its check digit open the optional data
// field, followed by a filler and the actual optional data.
func documentNumber(field string, check byte, optional string) (number, rest string, ok bool) {
	if check != '<' {
		return trimFiller(field), trimFiller(optional), checkOK(field, check)
	}
	end := strings.IndexByte(optional, '<')
	if end < 0 {
		end = len(optional)
	}
	head := optional[:end]
	if end < len(optional) {
		rest = trimFiller(optional[end+1:])
	}
	if len(head) < 2 {
		// No overflow characters: a filler in the check position can only
		// be a misread (a 9-character number has its digit in place).
		return trimFiller(field), rest, false
	}
	number = field + head[:len(head)-1]
	return number, rest, checkOK(number, head[len(head)-1])
}

// header reads document code and issuing state from line 1 positions 1–5.
// The code's second character is the issuer's choice: a letter, a filler,
// or a digit (the United States' permanent resident card is "C1").
func header(l1 string) (code, state string, err error) {
	c := l1[0:2]
	if !isLetter(c[0]) || !(isLetter(c[1]) || c[1] == '<' || c[1] >= '0' && c[1] <= '9') {
		return "", "", formatErr("line 1, positions 1–2: document code %q is not a letter followed by a letter, a digit or '<'", c)
	}
	if c[0] == 'V' {
		return "", "", formatErr("document code %q: machine-readable visas are not supported", c)
	}
	state, err = alphaCode(l1[2:5], "issuing state", 1, 3)
	return trimFiller(c), state, err
}

// alphaCode reads a 3-character state code: letters, optionally padded
// with fillers on the right ("D<<").
func alphaCode(s, what string, line, pos int) (string, error) {
	code := trimFiller(s)
	if code == "" {
		return "", formatErr("line %d, positions %d–%d: %s is empty", line, pos, pos+2, what)
	}
	for i := 0; i < len(code); i++ {
		if !isLetter(code[i]) {
			return "", formatErr("line %d, positions %d–%d: %s %q is not letters padded with '<'", line, pos, pos+2, what, s)
		}
	}
	return code, nil
}

func sex(c byte, line, pos int) (string, error) {
	switch c {
	case 'M', 'F', 'X':
		return string(c), nil
	case '<':
		return "X", nil
	}
	return "", formatErr("line %d, position %d: sex %q is not M, F or '<'", line, pos, rune(c))
}

// date parses YYMMDD and resolves the century.
func (p *parser) date(raw string, expiry bool, line, pos int) (Date, error) {
	what := "birth date"
	if expiry {
		what = "expiry date"
	}
	for i := 0; i < len(raw); i++ {
		if !isDigit(raw[i]) {
			return Date{}, formatErr("line %d, positions %d–%d: %s %q is not six digits", line, pos, pos+5, what, raw)
		}
	}
	yy := int(raw[0]-'0')*10 + int(raw[1]-'0')
	m := time.Month(int(raw[2]-'0')*10 + int(raw[3]-'0'))
	d := int(raw[4]-'0')*10 + int(raw[5]-'0')
	if m < time.January || m > time.December || d < 1 || d > 31 {
		return Date{}, formatErr("line %d, positions %d–%d: %s %q is not a date", line, pos, pos+5, what, raw)
	}
	var y int
	if expiry {
		y = resolveExpiry(yy, m, d, p.now)
	} else {
		y = resolveBirth(yy, m, d, p.now)
	}
	date := Date{Year: y, Month: m, Day: d}
	if !date.Valid() {
		return Date{}, formatErr("line %d, positions %d–%d: %s %q resolves to %v, which does not exist", line, pos, pos+5, what, raw, date)
	}
	return date, nil
}

// name splits a name field into primary and secondary identifiers.
func name(field string, line, pos int) (surname, given string, err error) {
	for i := 0; i < len(field); i++ {
		if c := field[i]; c != '<' && !isLetter(c) {
			return "", "", formatErr("line %d, position %d: name contains %q", line, pos+i, rune(c))
		}
	}
	s := trimFiller(field)
	if s == "" {
		return "", "", formatErr("line %d: name field is empty", line)
	}
	g := ""
	if i := strings.Index(s, "<<"); i >= 0 {
		s, g = s[:i], s[i+2:]
	}
	return words(s), words(g), nil
}

func words(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
}
