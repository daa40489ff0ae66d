package viz

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/verifyd/verifyd/mrz"
)

// monthNames maps the month abbreviations printed on documents (English,
// French, German, Spanish, Italian, Dutch, Portuguese, Polish, Nordic,
// Turkish, Romanian; folded to ASCII capitals) to months. Documents print
// "12 JAN 1990", "12 JANV/JAN 1990" (France), "12 MAR/MAR 90",
// "12 MAA/MAR 1990" (Dutch passports abbreviate maart as MAA) or
// "22 ARA/DEC 1950" (Turkey: Aralık).
var monthNames = map[string]time.Month{
	"JAN": 1, "IAN": 1, "JANV": 1, "JANVIER": 1, "JANUARY": 1, "JANUAR": 1, "ENE": 1, "GEN": 1, "JANEIRO": 1, "STY": 1, "OCA": 1,
	"FEB": 2, "FEV": 2, "FEVR": 2, "FEBRUARY": 2, "FEBRUAR": 2, "FEBR": 2, "LUT": 2, "SUB": 2,
	"MAR": 3, "MARS": 3, "MARCH": 3, "MAERZ": 3, "MARZ": 3, "MRZ": 3, "MAART": 3, "MAA": 3, "MRT": 3, "MARZO": 3,
	"APR": 4, "AVR": 4, "AVRIL": 4, "APRIL": 4, "ABR": 4, "KWI": 4, "NIS": 4,
	"MAY": 5, "MAI": 5, "MAG": 5, "MEI": 5, "MAJ": 5, "MAIO": 5, "MAYO": 5,
	"JUN": 6, "IUN": 6, "JUIN": 6, "JUNE": 6, "JUNI": 6, "GIU": 6, "CZE": 6, "JUNIO": 6, "HAZ": 6,
	"JUL": 7, "IUL": 7, "JUIL": 7, "JULY": 7, "JULI": 7, "LUG": 7, "LIP": 7, "JULIO": 7, "TEM": 7,
	"AUG": 8, "AOU": 8, "AOUT": 8, "AUGUST": 8, "AGO": 8, "SIE": 8, "AGOSTO": 8, "AGU": 8,
	"SEP": 9, "SEPT": 9, "SEPTEMBER": 9, "SET": 9, "WRZ": 9, "EYL": 9,
	"OCT": 10, "OKT": 10, "OCTOBER": 10, "OKTOBER": 10, "OTT": 10, "OUT": 10, "PAZ": 10, "EKI": 10,
	"NOV": 11, "NOI": 11, "NOVEMBER": 11, "NOVEMBRE": 11, "LIS": 11, "KAS": 11,
	"DEC": 12, "DEZ": 12, "DIC": 12, "DECEMBER": 12, "DEZEMBER": 12, "DECEMBRE": 12, "GRU": 12, "ARA": 12,
}

// monthAlso holds the month names that mean one month in one language and
// another in another: MEI is May in Dutch and June (Meitheamh) in Irish.
// (Ireland prints its months in Irish and English, "11 MEI/JUN 2027";
// its other Irish names are left out, so that the English one decides —
// IÚI, July, folds to what a Romanian card's IUN/IUL read with a
// misread letter looks like.)
// A date printed with one is read both ways (Date.Alt), as a numeric date
// whose day and month could be swapped is; a second language's month
// after it that is one of the two decides.
var monthAlso = map[string]time.Month{"MEI": 6}

// Date is a date printed in the visual zone.
type Date struct {
	Date mrz.Date
	// Text is the text it was read from; Digits its day, month and year
	// as YYYYMMDD before any two-digit year was resolved ("__" for the
	// century when only two digits were printed).
	Text   string
	Digits string
	// Alt is the other reading (YYYYMMDD) of a numeric date whose day
	// and month could be swapped (both ≤ 12): the order of a country's
	// documents is a habit, not a rule (a US passport prints 07.06.1944 in
	// the day-first order its licences do not use), so a match with the
	// MRZ in either order counts; or of a date whose month's name means
	// another month in another language (monthAlso). "" when not
	// ambiguous.
	Alt string
	// Conf is the lowest OCR confidence of its words.
	Conf float64
	// Line is the index of the line it was read on, in Zone.Lines.
	Line int
	// Role is what its label says it is (RoleNone: no label found).
	Role Role
	// Reads counts the readings of the zone that found this same date
	// (two passes with different thresholds that agree make a date more
	// certain than Tesseract's word confidence, which rates numeric dates
	// low).
	Reads int
	// Reread marks a date read on a re-read line (Zone.WithRereads): it
	// can only confirm the MRZ's date, never stand for a role.
	Reread bool
	// OneDigit marks a date whose day, or numeric month, was read with
	// one digit: documents print two (ICAO 9303 writes the visual zone's
	// dates DD MM YYYY or DD MMM YYYY), so one was lost to blur or glare.
	OneDigit bool
}

// Role is what a printed date or value stands for, from its label.
type Role string

// The roles labels give.
const (
	RoleNone    Role = ""
	RoleBirth   Role = "birth"
	RoleExpiry  Role = "expiry"
	RoleIssue   Role = "issue"
	RoleNumber  Role = "number"
	RoleSurname Role = "surname"
)

// Order says how numeric dates are written: DMY (most of the world) or
// MDY (United States).
type Order int

// The orders.
const (
	DMY Order = iota
	MDY
)

var (
	// Numeric dates with one separator used twice: 12.03.1990, 12/03/1990,
	// 12-03-1990, 12 03 1990; two-digit years only with punctuation.
	numericDates = []*regexp.Regexp{
		regexp.MustCompile(`([0-9]{1,2}) ?\. ?([0-9]{1,2}) ?\. ?([0-9]{4}|[0-9]{2})`),
		regexp.MustCompile(`([0-9]{1,2}) ?/ ?([0-9]{1,2}) ?/ ?([0-9]{4}|[0-9]{2})`),
		regexp.MustCompile(`([0-9]{1,2}) ?- ?([0-9]{1,2}) ?- ?([0-9]{4}|[0-9]{2})`),
		regexp.MustCompile(`([0-9]{1,2}) ([0-9]{1,2}) ([0-9]{4})`),
	}
	// 1990-03-12, 1990.03.12.
	isoDate = regexp.MustCompile(`([0-9]{4}) ?[./\-] ?([0-9]{1,2}) ?[./\-] ?([0-9]{1,2})`)
	// 12 JAN 1990, 12 JANV/JAN 1990, 12JAN90, 12 MAR /MAR 90, and the
	// second language's month after a slash OCR misread as a letter or
	// dropped ("25 AUG IAOUT 24" for "25 AUG /AOÛT 24"): the first month
	// decides, the second is only skipped — unless the first is no month
	// we know (a national abbreviation in a script or language not
	// listed: "26 ЖОВ/OCT 2024" read "26 KOB/OCT 2024"), when the second,
	// usually English, decides. A quote OCR makes of a speck before the
	// month ("07 "SEP 2029") or the year ("07 SEP “2031", a mild photo
	// of an Irish card, independently generated), or punctuation for the
	// space after the day ("20;SEP 1970"), is skipped; so are one or two
	// backslashes OCR makes of a guilloche's strokes beside the month
	// ("23\\FEB\ 1953", a Spanish passport in shadow, fresh seed 64).
	namedDate = regexp.MustCompile(`([0-9]{1,2}) ?[.;,:]? ?(?:["'‘’“”\\]{1,2} ?)?([A-Z]{3,9})\.?(?: ?([/|]?) ?([A-Z]{3,10})\.?)? ?(?:["'‘’“”\\]{1,2} ?)?([0-9]{4}|[0-9]{2})`)
)

// matches returns every match of re in s, overlapping ones included,
// that is not glued to more digits on either side (so that "3. 08.01.1976"
// yields 08.01.1976 and not 3.08.01).
func matches(re *regexp.Regexp, s string) [][]int {
	var out [][]int
	for from := 0; from < len(s); {
		loc := re.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += from
			}
		}
		a, b := loc[0], loc[1]
		glued := a > 0 && isDigit(s[a-1]) || b < len(s) && isDigit(s[b]) ||
			b+1 < len(s) && (s[b] == '.' || s[b] == '/' || s[b] == '-') && isDigit(s[b+1])
		if !glued {
			out = append(out, loc)
		}
		from = a + 1
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitFix turns letters OCR confuses with digits back into digits, in
// text that should be a number. An at sign is a zero whose oval blur or
// motion filled ("30 @5 1996" for 30 05 1996 on a genuine Swedish
// permit photographed with a shaking hand).
var digitFix = strings.NewReplacer("O", "0", "o", "0", "Q", "0", "D", "0", "@", "0", "I", "1", "l", "1", "|", "1", "!", "1",
	"S", "5", "s", "5", "B", "8", "Z", "2", "z", "2", "G", "6", "b", "6", "T", "7", "g", "9", "L", "1")

// fixDigitRuns repairs confusable letters inside tokens that are mostly
// digits (at most two letters, and no more letters than digits), leaving
// words such as month names alone.
func fixDigitRuns(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		digits, letters := 0, 0
		for _, r := range f {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '|' || r == '!' || r == '@':
				letters++
			}
		}
		if digits > 0 && letters <= 2 && letters <= digits {
			fields[i] = digitFix.Replace(f)
		}
	}
	return strings.Join(fields, " ")
}

// month reads a month name as printed (JAN, JANV, MARS, MAA, …): the
// whole word, else its first three letters.
func month(name string) (time.Month, bool) {
	mon, ok := monthNames[name]
	if !ok && len(name) > 3 {
		mon, ok = monthNames[name[:3]]
	}
	return mon, ok
}

// parseDates finds the dates in one line of folded text. Where two
// readings overlap, the first found wins: ISO, then numeric with a
// four-digit year, then named months, then the rest.
func parseDates(line string, order Order) []Date {
	var out []Date
	var taken [][2]int
	fixed := fixDigitRuns(line)
	// named is set while a date with a month name is added: its m is the
	// month's number, not what was printed.
	named := false
	add := func(loc []int, y, m, d string, swappable bool) {
		n := len(out)
		defer func() {
			if len(out) > n && (len(d) == 1 || len(m) == 1 && !named) {
				out[n].OneDigit = true
			}
		}()
		for _, t := range taken {
			if loc[0] < t[1] && t[0] < loc[1] {
				return
			}
		}
		year, _ := strconv.Atoi(y)
		month, _ := strconv.Atoi(m)
		day, _ := strconv.Atoi(d)
		digits := y
		if len(y) == 2 {
			digits = "__" + y
			year += 2000 // both centuries are tried when compared
		}
		if swappable && month > 12 && day >= 1 && day <= 12 {
			// The country's order is a habit, not a rule: 18 07 1973 on
			// a United States passport is day first.
			month, day = day, month
		}
		if month < 1 || month > 12 || day < 1 || day > 31 {
			return
		}
		dt := mrz.Date{Year: year, Month: time.Month(month), Day: day}
		// No living holder was born before 1900 and no document expires
		// after 2100: such a year is a misread (2024 read as 2924).
		if !dt.Valid() || year < 1900 || year > 2100 {
			return
		}
		taken = append(taken, [2]int{loc[0], loc[1]})
		alt := ""
		if swappable && day <= 12 && day != month {
			alt = digits + twoDigits(day) + twoDigits(month)
		}
		out = append(out, Date{Date: dt, Text: strings.TrimSpace(fixed[loc[0]:loc[1]]), Digits: digits + twoDigits(month) + twoDigits(day), Alt: alt})
	}
	sub := func(loc []int, i int) string { return fixed[loc[2*i]:loc[2*i+1]] }
	for _, loc := range matches(isoDate, fixed) {
		add(loc, sub(loc, 1), sub(loc, 2), sub(loc, 3), false)
	}
	for _, fourDigits := range []bool{true, false} {
		for _, re := range numericDates {
			for _, loc := range matches(re, fixed) {
				if (len(sub(loc, 3)) == 4) != fourDigits {
					continue
				}
				if order == MDY {
					add(loc, sub(loc, 3), sub(loc, 1), sub(loc, 2), true)
				} else {
					add(loc, sub(loc, 3), sub(loc, 2), sub(loc, 1), true)
				}
			}
		}
		if !fourDigits {
			continue
		}
		for _, loc := range matches(namedDate, fixed) {
			mon, ok := month(sub(loc, 2))
			also := monthAlso[sub(loc, 2)]
			if loc[8] >= 0 {
				second := sub(loc, 4)
				mon2, isMonth := month(second)
				if !isMonth && sub(loc, 3) == "" && len(second) > 3 && strings.ContainsRune("IL", rune(second[0])) {
					// The slash misread as I, L or | is dropped.
					mon2, isMonth = month(second[1:])
				}
				switch {
				case !ok && isMonth:
					// A first month we do not know: the second decides.
					mon, ok = mon2, true
				case sub(loc, 3) == "":
					// A second word with no slash before it is the
					// second language's month only if it reads as one:
					// "12 MAY CLOSE 22" in an address is no date.
					ok = ok && isMonth
				}
				if isMonth && also != 0 && (mon2 == mon || mon2 == also) {
					mon, also = mon2, 0
				}
			}
			if !ok {
				continue
			}
			n := len(out)
			named = true
			add(loc, sub(loc, 5), strconv.Itoa(int(mon)), sub(loc, 1), false)
			named = false
			if len(out) > n && also != 0 {
				other := out[n].Date
				other.Month = also
				if other.Valid() {
					out[n].Alt = out[n].Digits[:4] + twoDigits(int(also)) + out[n].Digits[6:]
				}
			}
		}
	}
	return out
}

func twoDigits(v int) string {
	if v < 10 {
		return "0" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}

// digitsOf writes d as YYYYMMDD.
func digitsOf(d mrz.Date) string {
	return strconv.Itoa(d.Year) + twoDigits(int(d.Month)) + twoDigits(d.Day)
}

// readings are the YYYYMMDD readings of p: its own, and Alt.
func (p Date) readings() []string {
	if p.Alt != "" {
		return []string{p.Digits, p.Alt}
	}
	return []string{p.Digits}
}

// sameDate reports whether the printed date p is the MRZ date m, in
// either order when ambiguous; a two-digit printed year matches either
// century.
func sameDate(p Date, m mrz.Date) bool {
	for _, r := range p.readings() {
		if digitDiff(r, digitsOf(m)) == 0 {
			return true
		}
	}
	return false
}

// nearDate reports whether p differs from m in exactly one digit: as
// likely a misread as a forgery, so it is never taken as a contradiction.
func nearDate(p Date, m mrz.Date) bool {
	for _, r := range p.readings() {
		if digitDiff(r, digitsOf(m)) == 1 {
			return true
		}
	}
	return false
}

// digitDiff counts the digits in which a printed reading differs from
// an MRZ date (YYYYMMDD; "__" for an unprinted century matches any).
func digitDiff(printed, md string) int {
	if strings.HasPrefix(printed, "__") {
		printed, md = printed[2:], md[2:]
	}
	if len(printed) != len(md) {
		return len(md)
	}
	diff := 0
	for i := range printed {
		if printed[i] != md[i] {
			diff++
		}
	}
	return diff
}

// resolved is d as a time, a two-digit year read as 19yy when 20yy would
// lie beyond 2060 (no document expires that late; birth years do).
func resolved(d Date) time.Time {
	t := d.Date.Time()
	if strings.HasPrefix(d.Digits, "__") && d.Date.Year > 2060 {
		t = t.AddDate(-100, 0, 0)
	}
	return t
}
