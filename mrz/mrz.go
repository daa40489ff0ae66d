// Package mrz reads and writes the machine-readable zones (MRZ) of travel
// documents as specified in ICAO Doc 9303: TD1 (identity cards, 3 lines of
// 30 characters, Part 5), TD2 (2 lines of 36, Part 6) and TD3 (passports,
// 2 lines of 44, Part 4).
//
// Parse turns OCR'd lines into Fields and verifies every check digit;
// Compose does the reverse. Parse distinguishes two kinds of failure: a
// *FormatError means the text is not an MRZ at all (wrong shape, foreign
// characters, impossible dates), while a *CheckError means the zone was read
// but one or more check digits do not verify; in the latter case the parsed
// Fields are returned as well.
//
// Machine-readable visas (MRV-A/MRV-B, document code "V") share the TD3/TD2
// sizes but not their layout and are rejected with a *FormatError.
package mrz

import (
	"fmt"
	"strings"
	"time"
)

// Format is the MRZ layout.
type Format int

// The three ICAO 9303 layouts.
const (
	TD1 Format = iota + 1 // 3 lines × 30 characters: ID cards, residence permits
	TD2                   // 2 lines × 36 characters
	TD3                   // 2 lines × 44 characters: passports
)

// Lines returns the number of lines of the format (0 for an unknown format).
func (f Format) Lines() int {
	switch f {
	case TD1:
		return 3
	case TD2, TD3:
		return 2
	}
	return 0
}

// Width returns the number of characters per line (0 for an unknown format).
func (f Format) Width() int {
	switch f {
	case TD1:
		return 30
	case TD2:
		return 36
	case TD3:
		return 44
	}
	return 0
}

// String returns "TD1", "TD2" or "TD3".
func (f Format) String() string {
	switch f {
	case TD1:
		return "TD1"
	case TD2:
		return "TD2"
	case TD3:
		return "TD3"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Date is a calendar date without time zone. Year is the full year after
// century resolution.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

// String formats d as YYYY-MM-DD.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Valid reports whether d is a real calendar date (year 0–9999).
func (d Date) Valid() bool {
	if d.Year < 0 || d.Year > 9999 || d.Month < time.January || d.Month > time.December || d.Day < 1 {
		return false
	}
	return d.Day <= daysIn(d.Year, d.Month)
}

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// cmpYMD compares two (year, month, day) tuples without normalising them.
func cmpYMD(y1 int, m1 time.Month, d1 int, y2 int, m2 time.Month, d2 int) int {
	switch {
	case y1 != y2:
		return cmp(y1, y2)
	case m1 != m2:
		return cmp(int(m1), int(m2))
	default:
		return cmp(d1, d2)
	}
}

func cmp(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Fields are the data of an MRZ (names in ICAO's terms).
type Fields struct {
	Format         Format
	DocumentCode   string // e.g. "P", "I", "ID", "AC", "IR" (1–2 chars, '<' trimmed)
	IssuingState   string // 3 letters, e.g. "GBR"; "D<<" is trimmed to "D"
	DocumentNumber string // without filler
	Surname        string // words separated by single spaces
	GivenNames     string
	Nationality    string
	BirthDate      Date
	Sex            string // "M", "F" or "X" ("<" on the document)
	ExpiryDate     Date
	// OptionalData1 is, without filler: TD1 the optional data after the
	// document number in line 1; TD2 the optional data of line 2; TD3 the
	// personal number. For long document numbers it excludes the overflow
	// of the document number and its check digit.
	OptionalData1 string
	OptionalData2 string // TD1: line 2 optional data; empty otherwise
	// Raw digits as printed (before century resolution), for evidence.
	RawBirthDate, RawExpiryDate string
}

// NameFull reports whether the names fill the MRZ's name field to its
// last position or the one before it. A name too long for the field is
// cut there (ICAO 9303 truncation: "MORENO<HERNANDEZ<<DANIEL<JAVIE" for
// the given names DANIEL JAVIER; a surname too long is cut to leave
// "<<" and the first given name's initial, one filler before the end), so
// the last part of a full field may be printed longer on the document
// than the MRZ holds it.
func (f Fields) NameFull() bool {
	w := 0
	switch f.Format {
	case TD1:
		w = 30
	case TD2:
		w = 31
	case TD3:
		w = 39
	default:
		return false
	}
	n := len(f.Surname)
	if f.GivenNames != "" {
		n += 2 + len(f.GivenNames)
	}
	return n >= w-1
}

// Names of check-digit-protected fields as reported in CheckError.Failed.
const (
	FieldDocumentNumber = "document_number"
	FieldBirthDate      = "birth_date"
	FieldExpiryDate     = "expiry_date"
	FieldPersonalNumber = "personal_number" // TD3 only
	FieldComposite      = "composite"
)

// CheckError reports check digits that do not verify. Parse returns it
// together with the parsed fields.
type CheckError struct {
	Failed []string // FieldDocumentNumber, FieldBirthDate, ... in MRZ order
}

func (e *CheckError) Error() string {
	return "mrz: check digit mismatch: " + strings.Join(e.Failed, ", ")
}

// Has reports whether the named field failed its check.
func (e *CheckError) Has(field string) bool {
	for _, f := range e.Failed {
		if f == field {
			return true
		}
	}
	return false
}

// FormatError reports input that is not a well-formed MRZ (or, from
// Compose, fields that cannot be rendered as one).
type FormatError struct {
	Problem string
}

func (e *FormatError) Error() string {
	return "mrz: " + e.Problem
}

func formatErr(format string, args ...any) *FormatError {
	return &FormatError{Problem: fmt.Sprintf(format, args...)}
}

type options struct {
	now time.Time
}

// Option configures Parse.
type Option func(*options)

// WithNow sets the reference time for century resolution (default
// time.Now()). Its calendar date in its own location is "today".
func WithNow(t time.Time) Option {
	return func(o *options) { o.now = t }
}

// CheckDigit computes the ICAO 9303 check digit of s: the characters are
// valued 0–9 for digits, 10–35 for A–Z and 0 for the filler '<' (any other
// byte also counts 0), weighted 7, 3, 1 repeating, summed modulo 10.
func CheckDigit(s string) int {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i := 0; i < len(s); i++ {
		sum += charValue(s[i]) * weights[i%3]
	}
	return sum % 10
}

func charValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	}
	return 0
}

// Age returns the full years between birth and at (the calendar date of at
// in its own location). Someone born on 29 February becomes a year older on
// 1 March in common years. The result is negative if at is before birth.
func Age(birth Date, at time.Time) int {
	y, m, d := at.Date()
	age := y - birth.Year
	if m < birth.Month || (m == birth.Month && d < birth.Day) {
		age--
	}
	return age
}

// resolveBirth picks the century for a two-digit birth year: the latest
// year ending in yy whose date is not after today.
func resolveBirth(yy int, m time.Month, d int, now time.Time) int {
	ny, nm, nd := now.Date()
	y := floorDiv(ny, 100)*100 + yy
	if cmpYMD(y, m, d, ny, nm, nd) > 0 {
		y -= 100
	}
	return y
}

// resolveExpiry picks the century for a two-digit expiry year that puts the
// date within [today-50y, today+50y]; on the boundary (both ends qualify)
// the later one wins.
func resolveExpiry(yy int, m time.Month, d int, now time.Time) int {
	ny, nm, nd := now.Date()
	base := floorDiv(ny, 100)*100 + yy
	for _, y := range [...]int{base + 100, base, base - 100} {
		if cmpYMD(y, m, d, ny+50, nm, nd) <= 0 && cmpYMD(y, m, d, ny-50, nm, nd) >= 0 {
			return y
		}
	}
	return base // unreachable: the window spans 100 years
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
