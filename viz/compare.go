package viz

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/verifyd/verifyd/mrz"
)

// Status is how a printed field compares with the MRZ.
type Status string

// The statuses. Only Mismatch is evidence of forgery; Uncertain (a
// difference as small as one misread character, or a low-confidence
// reading) and Unread send a person to look.
const (
	Match     Status = "match"
	Mismatch  Status = "mismatch"
	Uncertain Status = "uncertain"
	Unread    Status = "unread"
)

// Field is one printed field compared with the MRZ.
type Field struct {
	Name    string `json:"field"`
	Status  Status `json:"status"`
	MRZ     string `json:"mrz"`
	Printed string `json:"printed,omitempty"`
	Conf    string `json:"confidence,omitempty"`
}

// Comparison is the visual zone compared with the MRZ field by field.
type Comparison []Field

// Mismatches returns the fields that contradict the MRZ.
func (c Comparison) Mismatches() []Field { return c.with(Mismatch) }

func (c Comparison) with(s Status) []Field {
	var out []Field
	for _, f := range c {
		if f.Status == s {
			out = append(out, f)
		}
	}
	return out
}

// AllMatch reports whether every compared field was found as the MRZ says.
func (c Comparison) AllMatch() bool { return len(c) > 0 && len(c.with(Match)) == len(c) }

// Describe lists the fields with their status, for operators.
func (c Comparison) Describe(s Status) string {
	var parts []string
	for _, f := range c.with(s) {
		if f.Printed != "" {
			parts = append(parts, fmt.Sprintf("%s printed %q, MRZ %q", f.Name, f.Printed, f.MRZ))
		} else {
			parts = append(parts, f.Name)
		}
	}
	return strings.Join(parts, "; ")
}

// MinConf is the OCR confidence below which a printed value that differs
// from the MRZ is only Uncertain.
const MinConf = 0.6

// Compare compares the printed birth date, expiry date, document number
// and surname with the MRZ's.
func Compare(z Zone, f mrz.Fields) Comparison {
	rows := z.rowTexts()
	return Comparison{
		z.compareDate("birth_date", f.BirthDate, RoleBirth, f.ExpiryDate, rows),
		z.compareDate("expiry_date", f.ExpiryDate, RoleExpiry, f.BirthDate, rows),
		z.compareNumber(f.DocumentNumber, f.OptionalData1, f.OptionalData2),
		z.compareSurname(f.Surname),
	}
}

// compareDate looks for the MRZ's date want among the printed dates, and
// else compares it with the printed date that stands for role. That date
// contradicts the MRZ only when it is not (within a misread) the MRZ's
// other date: a label taken for the wrong row gave a genuine card's
// expiry date, misread by one digit, the role of its birth date.
//
// A match that no label of role vouches for (the MRZ's date found as
// digits in some number, or under another label) does not outweigh a
// date its label names for role that contradicts the MRZ: both are
// printed, and the comparison is Uncertain. A Ukrainian record number
// begins with its holder's birth date; a forged birth date printed under
// its label next to it was approved once the record number's hyphen was
// read as a dot (independently generated photos, seed 12).
func (z Zone) compareDate(name string, want mrz.Date, role Role, other mrz.Date, rows []string) Field {
	fd := Field{Name: name, Status: Unread, MRZ: want.String()}
	c, found := z.dateFor(role)
	labelled := found && c.Role == role
	match := func(text string, byLabel bool) Field {
		fd.Status, fd.Printed = Match, text
		if !byLabel && labelled && z.contradicts(c, want, role, other) {
			fd.Status, fd.Printed, fd.Conf = Uncertain, c.Text+" / "+text, fmt.Sprintf("%.2f", c.Conf)
		}
		return fd
	}
	for _, d := range z.Dates {
		if sameDate(d, want) || role == RoleExpiry && !d.Reread && flagReadFour(d, want) {
			return match(d.Text, d.Role == role)
		}
	}
	if text, ok := spelledOut(want, rows); ok {
		return match(text, false)
	}
	if text, ok := z.namedOut(want); ok {
		return match(text, false)
	}
	if text, ok := z.impossibleOut(want); ok {
		return match(text, false)
	}
	if !found {
		return fd
	}
	fd.Printed, fd.Conf = c.Text, fmt.Sprintf("%.2f", c.Conf)
	if z.contradicts(c, want, role, other) {
		fd.Status = Mismatch
	} else {
		fd.Status = Uncertain
	}
	return fd
}

// hasWord reports a word of three letters or more and no digit in s: a
// label's, not a document number's (a German passport's numbered label
// "19. TYP / TYPE", read beside the number's own label, failed a genuine
// passport as potential_fraud on independently generated photos).
func hasWord(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '/' || r == '-' || r == '.' || r == ',' }) {
		if len(w) >= 3 && !strings.ContainsFunc(w, func(r rune) bool { return r < 'A' || r > 'Z' }) {
			return true
		}
	}
	return false
}

// cutOther reports a printed date that is the MRZ's other date with its
// four-digit year cut to the century ("18.04.20" for an expiry date of
// 18.04.2031): a glared expiry so cut, taken for the birth date under a
// place-of-birth label, failed a genuine card as potential_fraud
// (independently generated photos).
func cutOther(p Date, other mrz.Date) bool {
	return cutShort(p, other) && p.Digits[4:] == twoDigits(int(other.Month))+twoDigits(other.Day)
}

// contradicts reports a printed date c standing for role that differs
// from the MRZ's want as a forger's change does, rather than as a misread,
// a cut, a wrongly placed label or the MRZ's other date would.
//
// A date that no label names, placed as role only by its place among the
// dates, contradicts only when two readings read it: its role rests on
// the other dates read, which misreads make up too. A genuine permit's
// birth date 01 06 1991, motion-blurred, was read "07 06 1997" once (0.63)
// and "0106 199]", "0106 I993" by the other readings; a misread expiry
// "19 05 2035" beside the real 19 05 2029 made three dates of two and
// placed it, and the permit was failed as potential_fraud (independently
// generated photos, fresh seed 24).
//
// A date read with a one-digit day or month (Date.OneDigit) lost a digit:
// a genuine Belgian permit's soft 19 11 2033 was read "1 1 2033", an
// expiry earlier than the MRZ's, and failed as potential_fraud (fresh
// seed 32). The lost digit excuses only what it can explain (lostDigit):
// a forged expiry 07 12 2024 read "7 12 2024" against the MRZ's
// 2030-03-14 went to review (twenty-fifth pass).
func (z Zone) contradicts(c Date, want mrz.Date, role Role, other mrz.Date) bool {
	return !(nearDate(c, want) || c.Conf < MinConf && c.Reads < 2 || c.Role == RoleNone && c.Reads < 2 ||
		sameDate(c, other) || nearDate(c, other) || z.yearCut(c) || c.OneDigit && lostDigit(c, want) ||
		cutShort(c, want) || cutOther(c, other) || !forgersWay(c, want, role) || !z.labelHeld(c) || issueLike(c, want, role) ||
		role == RoleBirth && issuedFor(c, other))
}

// lostDigit reports whether c, a date read with a one-digit day or month,
// could be the MRZ's date want with that digit's neighbour lost and at
// most one other digit misread: a part read with one digit (stored with a
// leading 0) matches the MRZ's when its digit is one of the MRZ's two
// there; the other digits are compared one by one.
func lostDigit(c Date, want mrz.Date) bool {
	md := digitsOf(want)
	for _, r := range c.readings() {
		if len(r) != 8 || len(md) != 8 {
			return true // a shape this does not know: excused, as before
		}
		diff := digitDiff(r[:4], md[:4])
		for _, k := range []int{4, 6} {
			part, m := r[k:k+2], md[k:k+2]
			if part[0] == '0' && strings.IndexByte(m, part[1]) >= 0 {
				continue
			}
			diff += digitDiff(part, m)
		}
		if diff <= 1 {
			return true
		}
	}
	return false
}

// yearCut reports a printed date with a two-digit year on a page where
// another date was read with four: a document prints its dates alike, so
// this year is a four-digit one that OCR cut short, not a printed one. A
// German card's glared birth date 16.12.1970 was read "16.12.1" in five
// readings and "16.12.15" in two, and the genuine card was failed as
// potential_fraud for a birth in 2015 (independently generated photos,
// fresh seed 25). cutShort excuses only a cut year that is the MRZ year's
// century; a cut digit can be misread too.
func (z Zone) yearCut(c Date) bool {
	if !strings.HasPrefix(c.Digits, "__") {
		return false
	}
	return slices.ContainsFunc(z.Dates, func(d Date) bool { return !strings.HasPrefix(d.Digits, "__") })
}

// flagReadFour reports a printed date that is the MRZ's but for one 1
// read as 4, and so later than the MRZ's: Tesseract reads the long flag
// of an OCR-B 1 printed in the visual zone as a 4 ("21.06.2034" for
// 21.06.2031, on two genuine passports of two seeds of independently
// generated photos, which went to review). Only an expiry date is read
// so: a later printed expiry is no forger's change (forgersWay), while a
// later printed birth date is.
func flagReadFour(p Date, want mrz.Date) bool {
	if !resolved(p).After(want.Time()) {
		return false
	}
	md := digitsOf(want)
	for _, r := range p.readings() {
		if strings.HasPrefix(r, "__") || len(r) != len(md) || digitDiff(r, md) != 1 {
			continue
		}
		for i := range r {
			if r[i] != md[i] && r[i] == '4' && md[i] == '1' {
				return true
			}
		}
	}
	return false
}

// labelHeld reports whether the readings that read d agree on its label:
// at least two of them, or half, gave it d's role. Glare over a passport's
// birth date left only its issue date below the birth date's label in one
// reading of six; the other five read the same date with no label, and
// the one was enough to fail a genuine passport as potential_fraud
// (independently generated photos, docs/accuracy.md). A date that no
// label names (its role found by its place among the dates) holds.
func (z Zone) labelHeld(d Date) bool {
	if d.Role == RoleNone {
		return true
	}
	reads, labelled := 0, 0
	for _, o := range z.Dates {
		if o.Reread || o.Digits != d.Digits {
			continue
		}
		reads++
		if o.Role == d.Role {
			labelled++
		}
	}
	return labelled >= 2 || 2*labelled >= reads
}

// cutShort reports a printed date whose two-digit year is the MRZ year's
// century: a four-digit year cut short by glare or the edge of what OCR
// read ("18.02.20" for 17.02.2027 on an independently generated card, a
// genuine one failed as potential_fraud), as likely as a two-digit year.
func cutShort(p Date, want mrz.Date) bool {
	return strings.HasPrefix(p.Digits, "__") && len(p.Digits) == 8 && p.Digits[2:4] == strconv.Itoa(want.Year/100)
}

// forgersWay reports whether a printed date differs from the MRZ's the
// way a forgery that passes our checks would: a birth date later than the
// MRZ's (the holder younger than the MRZ says, as when an adult's MRZ is
// put on a minor's document) or an expiry date earlier (the document
// expired, its MRZ made current). A difference the other way gains a
// forger nothing against these checks and is most often a misread: a
// genuine card's expiry 06 10 2029 was read "08 10 2079" (independently
// generated photos); it goes to a person, never to approval.
func forgersWay(p Date, want mrz.Date, role Role) bool {
	switch role {
	case RoleBirth:
		return resolved(p).After(want.Time())
	case RoleExpiry:
		return resolved(p).Before(want.Time())
	}
	return true
}

// issueLike reports a printed expiry date a whole number of years and a
// day before the MRZ's expiry: documents valid for whole years expire the
// day before an anniversary of their issue, so this is the issue date,
// read where the expiry was not. Two genuine permits of independently
// generated photos were failed as potential_fraud so (30.10.2025 for an
// expiry of 2028-10-29, 24 05 2026 for 2031-05-23; docs/accuracy.md,
// tenth pass). The same day and month in an earlier year stays a
// contradiction: that is the forger's change of the year alone. A forged
// expiry that happens to fall on the day after goes to a person, never to
// approval.
//
// A printed birth date is compared with the MRZ's expiry (other) the same
// way: a genuine Polish permit's issue date 01.01.2025, read once on a
// line with a garbled birth label ("OB NAISSANCE 01.01.2025"), failed it
// as potential_fraud for a holder born in 2025, two years and a day
// before its expiry 2026-12-31 (independently generated photos, fresh
// seed 30). A forger's minor is born 14 or more years before the
// document's expiry, which the 15 years looked for rarely reach.
func issueLike(p Date, want mrz.Date, role Role) bool {
	if role != RoleExpiry {
		return false
	}
	issued, expires := resolved(p), want.Time()
	for years := 1; years <= 15; years++ {
		if issued.AddDate(years, 0, -1).Equal(expires) {
			return true
		}
	}
	return false
}

// issuedFor reports a printed birth date that is the document's issue
// date for its MRZ expiry: a whole number of years (1–15) before it, or
// that and a day (issueLike) — documents run to the anniversary of their
// issue or to the day before it. A forged Belgian passport's issue date
// 03 12 2025, five years to the day before its expiry and read "3
// DEC/DEC 2025" under the birth label, was taken for the forgery
// (independently generated photos, twenty-fifth pass); on a genuine
// document whose birth date was not read, the same reading would accuse
// it. A forger's minor is born 14 years or more before the expiry, on
// its day and month only by chance.
func issuedFor(p Date, expiry mrz.Date) bool {
	if issueLike(p, expiry, RoleExpiry) {
		return true
	}
	issued, expires := resolved(p), expiry.Time()
	for years := 1; years <= 15; years++ {
		if issued.AddDate(years, 0, 0).Equal(expires) {
			return true
		}
	}
	return false
}

// spelledOut looks for the MRZ's date among the printed words with its
// separators misread: its eight digits, day first, month first or year
// first, as the digits of one to eight adjacent words (letters OCR
// confuses with digits read as digits). Motion blur and phone processing
// turn "11 12 1961" into "11:12 1961", "14 09 1982" into "1409 1982" and
// "18 09 2026" into "18092 026", which no date pattern accepts; a phone
// photo's sharpened 25 07 2026 was read digit by digit, "2 5 0 7 2 0 2
// 6" (a Portuguese permit, fresh seed 69). Only the
// MRZ's own date is looked for, with all eight digits (a personal number
// that holds a birth date as YYMMDD does not), so a printed date that
// differs never matches by itself; a longer number that holds the MRZ's
// date whole (a record number beginning YYYYMMDD) is told apart by what
// continues it (numberPart, and the words either side of a long run).
//
// rows are the zone's lines outside the MRZ and the pairs of them that
// continue each other on one row (Zone.rowTexts): a date Tesseract split
// into two lines ("30.04" and "1982", a mild photo's Turkish card in
// every reading) is looked for in the two lines' text joined.
func spelledOut(want mrz.Date, rows []string) (string, bool) {
	y, m, d := strconv.Itoa(want.Year), twoDigits(int(want.Month)), twoDigits(want.Day)
	targets := []string{d + m + y, m + d + y, y + m + d}
	for _, text := range rows {
		ws := strings.Fields(fixDigitRuns(text))
		for i := range ws {
			digits := ""
			for j := i; j < len(ws) && j < i+8; j++ {
				wd := onlyDigits(ws[j])
				// A word with letters left after the repair is not part
				// of a number.
				if wd == "" || strings.ContainsFunc(ws[j], func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
					break
				}
				digits += wd
				if len(digits) > 8 {
					break
				}
				if !slices.Contains(targets, digits) || numberPart(ws, i, j, digits == targets[2]) {
					continue
				}
				// Digits spread over four words or more, or year first
				// over several, are the date only when no number word
				// continues them on either side: a record number that
				// begins with the holder's birth date (YYYYMMDD), read
				// digit by digit or with its hyphen lost ("1 9 7 4 0 8 1
				// 2 0 1 2 3 4", "1974 08 12 01234"), would otherwise
				// confirm the MRZ's birth date beside a forged one.
				if (j-i >= 3 || j > i && digits == targets[2]) &&
					(i > 0 && numberWord(ws[i-1]) || j+1 < len(ws) && numberWord(ws[j+1])) {
					continue
				}
				return strings.Join(ws[i:j+1], " "), true
			}
		}
	}
	return "", false
}

// rowTexts is the text of every line outside the MRZ, then that of every
// two such lines that continue each other on one row: the second begins
// to the right of the first's end, within three of its heights (a gap
// Tesseract took for the end of a line), and the two overlap by half
// their height. Only pairs whose meeting words are both numbers (as
// spelledOut reads them) are joined: no other pair can hold digits
// that run across the two lines, and a zone of hundreds of lines,
// compared after every reading, has few such pairs.
func (z Zone) rowTexts() []string {
	var out []string
	var ends, starts []int
	for i, l := range z.Lines {
		if l.MRZ {
			continue
		}
		out = append(out, l.Text)
		ws := strings.Fields(fixDigitRuns(l.Text))
		if len(ws) == 0 || l.Box.Dy() <= 0 {
			continue
		}
		if numberWord(ws[len(ws)-1]) {
			ends = append(ends, i)
		}
		if numberWord(ws[0]) {
			starts = append(starts, i)
		}
	}
	for _, i := range ends {
		a := z.Lines[i]
		h := a.Box.Dy()
		for _, j := range starts {
			b := z.Lines[j]
			gap := b.Box.Min.X - a.Box.Max.X
			overlap := min(a.Box.Max.Y, b.Box.Max.Y) - max(a.Box.Min.Y, b.Box.Min.Y)
			if gap < -h/2 || gap > 3*h || 2*overlap < min(h, b.Box.Dy()) {
				continue
			}
			out = append(out, a.Text+" "+b.Text)
		}
	}
	return out
}

// numberWord reports a word (after fixDigitRuns) that spelledOut takes
// as part of a number: digits and no letters.
func numberWord(w string) bool {
	return onlyDigits(w) != "" && !strings.ContainsFunc(w, func(r rune) bool { return r >= 'A' && r <= 'Z' })
}

// numberPart reports digits read from words ws[i..j] that are a part of a
// longer number rather than a date: continued by a hyphen ("19960707-
// 07520", a Ukrainian passport's record number, which begins with its
// holder's birth date: a forged birth date printed next to it was taken
// as confirmed; independently generated photos, docs/accuracy.md), or
// year first (yearFirst) in one word with no separator inside it, as such
// numbers print a date and documents do not. Punctuation around the word
// does not make it a date: OCR read the same record number's hyphen as a
// dot ("19880304. 10325"), and the forged birth date next to it was
// approved.
func numberPart(ws []string, i, j int, yearFirst bool) bool {
	if strings.HasSuffix(ws[j], "-") || j+1 < len(ws) && strings.HasPrefix(ws[j+1], "-") {
		return true
	}
	if !yearFirst || i != j {
		return false
	}
	core := strings.TrimFunc(ws[i], func(r rune) bool { return r < '0' || r > '9' })
	return onlyDigits(core) == core
}

// impossibleOut looks for the MRZ's date printed with one digit misread
// into a day or month no calendar has, or a year no document prints (as
// parseDates, before 1900 or after 2100), numeric or, for the day alone,
// with the month's name: "09.63.1974" for 09.03.1974,
// the 0 of a motion-blurred card's month read as 6 in every reading,
// which no date pattern accepts. A numeric date with a four-digit year
// that is no date in either order and differs from the MRZ's in that one
// digit alone is its misread: a forger prints a date that exists, and a date
// that differs from the MRZ's in two digits or more still differs in
// another digit however one digit of it is misread. A forged date one
// digit off the MRZ's, misread in that very digit into no date, would
// pass; it is refused when another reading read a date that exists one
// digit off the MRZ's in that same digit, as that forgery reads when it is
// read as printed (disputed).
func (z Zone) impossibleOut(want mrz.Date) (string, bool) {
	md := digitsOf(want)
	// disputed reports a reading r (YYYYMMDD) one digit off the MRZ's
	// whose digit another reading of the page read as a date that
	// exists, also one digit off the MRZ's there: a forger's change of
	// that digit, read as printed, and the impossible reading the same
	// date with the changed digit misread (a forged 22 AUG 1974 read once
	// "72 AUG 1974" against the MRZ's 12 AUG 1974; a review of the named
	// month's rule). A date off in another digit (an issue date ten years
	// before the expiry, 11 JUN 2020 beside 11 JUN 2030) disputes nothing.
	disputed := func(r string) bool {
		at := oneDiff(r, md)
		return slices.ContainsFunc(z.Dates, func(d Date) bool {
			return !d.Reread && !sameDate(d, want) && slices.ContainsFunc(d.readings(), func(o string) bool {
				return oneDiff(o, md) == at
			})
		})
	}
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		fixed := fixDigitRuns(l.Text)
		for _, re := range numericDates {
			for _, loc := range matches(re, fixed) {
				a, b, y := fixed[loc[2]:loc[3]], fixed[loc[4]:loc[5]], fixed[loc[6]:loc[7]]
				year, _ := strconv.Atoi(y)
				if len(y) != 4 || len(a) != 2 || len(b) != 2 || year >= 1900 && year <= 2100 && (calendarDay(a, b) || calendarDay(b, a)) {
					continue
				}
				for _, r := range []string{y + b + a, y + a + b} {
					if digitDiff(r, md) == 1 && !disputed(r) {
						return strings.TrimSpace(fixed[loc[0]:loc[1]]), true
					}
				}
			}
		}
		// The same with the month's name: its month and year are the
		// MRZ's, and the day, two digits, one digit off the MRZ's and no
		// day of that month ("67 APR 1971" for 07 APR 1971, an Irish
		// card's soft 0 read as 6 in five readings of six; "56'BEP/MAR
		// 2030" for 26 MAR 2030 on a tilted Ukrainian passport, fresh
		// seed 67).
		text := strings.Join(strings.Fields(unpunct.Replace(fixed)), " ")
		for _, loc := range matches(looseNamed, text) {
			day, y := text[loc[2]:loc[3]], strings.ReplaceAll(text[loc[6]:loc[7]], " ", "")
			if len(day) != 2 || y != strconv.Itoa(want.Year) || onlyMonth(text[loc[4]:loc[5]]) != want.Month ||
				calendarDay(day, twoDigits(int(want.Month))) {
				continue
			}
			if r := md[:6] + day; digitDiff(r, md) == 1 && !disputed(r) {
				return text[loc[0]:loc[1]], true
			}
		}
	}
	return "", false
}

// oneDiff returns the index of the one digit in which a reading (YYYYMMDD,
// "__" for an unprinted century) differs from an MRZ date's digits, or -1
// when they differ in none or in more.
func oneDiff(r, md string) int {
	if len(r) != len(md) {
		return -1
	}
	at := -1
	for i := range r {
		if r[i] != md[i] && r[i] != '_' {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// calendarDay reports whether day and month (two digits each) name a day
// some year has.
func calendarDay(day, month string) bool {
	d, _ := strconv.Atoi(day)
	m, _ := strconv.Atoi(month)
	return m >= 1 && m <= 12 && d >= 1 && d <= 31 && mrz.Date{Year: 2000, Month: time.Month(m), Day: d}.Valid()
}

// looseNamed is a day, one or two words of letters and a year of four
// digits with at most one gap in it, in text whose punctuation was made
// spaces.
var looseNamed = regexp.MustCompile(`([0-9]{1,2}) ?([A-Z]{3,12}(?: [A-Z]{3,12})?) ?([0-9] ?[0-9] ?[0-9] ?[0-9])`)

// unpunct makes a date's punctuation spaces.
var unpunct = strings.NewReplacer(".", " ", ",", " ", ";", " ", ":", " ", "/", " ", "|", " ", "'", " ", "\"", " ")

// namedOut looks for the MRZ's date printed with a month name that the
// date patterns cannot read: a bilingual month whose slash OCR misread as
// a letter and glued to both names ("18 IUIJUL 2032" for 18 IUL/JUL 2032
// on an independently generated Romanian card), or a year split by a gap
// ("27 JAN 203 5"). The day and the four-digit year must be the MRZ's and
// the words must hold a name of the MRZ's month and of no other month (the
// French AOUT holds the Portuguese OUT), so a printed date that differs
// still never matches.
func (z Zone) namedOut(want mrz.Date) (string, bool) {
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		text := strings.Join(strings.Fields(unpunct.Replace(fixDigitRuns(l.Text))), " ")
		for _, loc := range matches(looseNamed, text) {
			day, _ := strconv.Atoi(text[loc[2]:loc[3]])
			year, _ := strconv.Atoi(strings.ReplaceAll(text[loc[6]:loc[7]], " ", ""))
			if day == want.Day && year == want.Year && onlyMonth(text[loc[4]:loc[5]]) == want.Month {
				return text[loc[0]:loc[1]], true
			}
		}
	}
	return "", false
}

// onlyMonth returns the one month whose names (three letters or more)
// the words hold, or 0 when they hold none or names of several months.
func onlyMonth(words string) time.Month {
	var found time.Month
	for name, m := range monthNames {
		if len(name) < 3 || !strings.Contains(words, name) {
			continue
		}
		if found != 0 && found != m {
			return 0
		}
		found = m
	}
	return found
}

func onlyDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dateFor returns the printed date that stands for role: the one its label
// names, else (without labels) one placed as such among at least three
// distinct dates (birth, issue, expiry): the earliest for a birth date when
// it lies more than 10.5 years before the latest (an issue date does not),
// the latest for an expiry date. With fewer dates read, an unlabelled date
// could be any of them.
func (z Zone) dateFor(role Role) (Date, bool) {
	var dates []Date
	for _, d := range z.Dates {
		if !d.Reread {
			dates = append(dates, d)
		}
	}
	var best Date
	found := false
	for _, d := range dates {
		if d.Role == role && (!found || d.Conf > best.Conf) {
			best, found = d, true
		}
	}
	if found {
		return best, true
	}
	distinct := map[string]bool{}
	for _, d := range dates {
		distinct[d.Digits] = true
	}
	if len(distinct) < 3 {
		return Date{}, false
	}
	earliest, latest := dates[0], dates[0]
	for _, d := range dates[1:] {
		if resolved(d).Before(resolved(earliest)) {
			earliest = d
		}
		if resolved(d).After(resolved(latest)) {
			latest = d
		}
	}
	switch role {
	case RoleBirth:
		if earliest.Role == RoleNone && resolved(latest).Sub(resolved(earliest)).Hours() > 10.5*365.25*24 {
			return earliest, true
		}
	case RoleExpiry:
		if latest.Role == RoleNone {
			return latest, true
		}
	}
	return Date{}, false
}

// DateFor returns the printed date its label (or its place among the
// dates, see Compare) says stands for role: how a document without an MRZ
// (a driving licence) is read.
func (z Zone) DateFor(role Role) (Date, bool) { return z.dateFor(role) }

// confusable maps characters OCR and fonts confuse to one representative,
// so that document numbers compare by shape.
var confusable = strings.NewReplacer("O", "0", "Q", "0", "D", "0", "I", "1", "L", "1", "|", "1", "S", "5",
	"B", "8", "Z", "2", "G", "6", "U", "V")

// nameShape is a name's shape (see shape), with IJ read as one U: OCR
// reads the Dutch IJ, two narrow glyphs close together, as U ("THUS" for
// THIJS on a Dutch passport, independently generated photos,
// docs/accuracy.md, twenty-fourth pass).
func nameShape(s string) string {
	return shape(strings.ReplaceAll(strings.ToUpper(s), "IJ", "U"))
}

func shape(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '|':
			b.WriteRune(r)
		case r == '$' || r == '§':
			b.WriteRune('S')
		}
	}
	return confusable.Replace(b.String())
}

var numberLabels = []string{"NO", "NR", "NUMBER", "NUMERO", "NUMMER", "N", "NUM", "PASSPORT", "PASSEPORT", "REISEPASS",
	"DOCUMENT", "DOCUMENTO", "DOKUMENT", "CARD", "CARTE", "AUSWEIS", "PASAPORTE", "PASSAPORTO", "LICENCE", "LICENSE", "DL", "5", "5."}

// compareNumber looks for the MRZ's document number (want) among the
// printed words. A labelled printed number contradicts it only when it is
// a whole number of the same length that differs in two or more
// characters: a shorter or longer value is as likely a number cut short
// by OCR ("TC177" for TC177765, a word ending where glare began) or
// another field under a nearby label (a record number that the MRZ holds
// in its optional data, others), and is only uncertain.
func (z Zone) compareNumber(want string, others ...string) Field {
	fd := Field{Name: "document_number", Status: Unread, MRZ: want}
	target := shape(want)
	if len(target) < 4 {
		return fd
	}
	if got, ok := z.findNumber(target); ok {
		fd.Status, fd.Printed = Match, got
		return fd
	}
	// A labelled value of a number's shape that differs.
	v, conf, ok := z.valueFor(func(t []string) bool { return hasAny(t, numberLabels) }, func(s string) bool {
		digits := 0
		for _, r := range s {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		// Neither a date nor a piece of the MRZ (its filler '<') is a
		// printed number that could contradict it.
		return len(s) >= 5 && len(s) <= 14 && digits >= 2 && !strings.ContainsAny(s, "<«‹") &&
			len(parseDates(s, DMY)) == 0 && len(parseDates(s, MDY)) == 0 && !hasWord(s)
	})
	if !ok {
		if v, conf, ok := z.alteredNumber(target, others); ok {
			fd.Status, fd.Printed, fd.Conf = Mismatch, v, fmt.Sprintf("%.2f", conf)
		}
		return fd
	}
	fd.Printed, fd.Conf = v, fmt.Sprintf("%.2f", conf)
	sv := shape(v)
	elsewhere := false
	for _, o := range others {
		if o = shape(o); len(o) >= 4 && (strings.Contains(o, sv) || strings.Contains(sv, o)) {
			elsewhere = true
		}
	}
	// Tesseract is rarely confident of a number (no dictionary): the
	// same value read alike three times is as good as a confident read.
	sure := conf >= MinConf || z.readsOf(sv) >= 3
	if d := distance(sv, target); d <= 1 || !sure || len(sv) != len(target) || elsewhere || z.undisputed(sv, target) <= 1 {
		fd.Status = Uncertain
		// The value under the label cut short or run into the next
		// field ("VFP8V4V8" for JVFP8V4V8), while the altered number
		// stands whole elsewhere on the page, read alike again and again:
		// a forged passport number went to review for the one cut
		// reading (independently generated photos, docs/accuracy.md).
		if len(sv) != len(target) && !elsewhere {
			if v, conf, ok := z.alteredNumber(target, others); ok {
				fd.Status, fd.Printed, fd.Conf = Mismatch, v, fmt.Sprintf("%.2f", conf)
			}
		}
	} else {
		fd.Status = Mismatch
	}
	return fd
}

// undisputed counts the positions where sv, a printed number of target's
// length, differs from it and no other reading on the page of the same
// number reads target's character there. A reading of the same number is
// a word of three or more characters that, placed at some offset in sv,
// agrees at every position with sv or with target, and with sv at two or
// more. OCR misreads a glyph differently from reading to reading, a
// forger's change reads alike: a Swiss passport's T6495782 printed in
// OCR-B was read 16495789, 16495785 (twice) and 76495785 under its label,
// and T64 beside it (independently generated photos, docs/accuracy.md) —
// its first character is disputed, and one differing character is only
// uncertain.
func (z Zone) undisputed(sv, target string) int {
	disputed := make([]bool, len(sv))
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		for _, w := range l.Words {
			sw := shape(fold(w.Text))
			if len(sw) < 3 || len(sw) > len(sv) {
				continue
			}
			for o := 0; o+len(sw) <= len(sv); o++ {
				agree, fits := 0, true
				var backs []int
				for j := range len(sw) {
					switch c := sw[j]; {
					case c == sv[o+j]:
						agree++
					case c == target[o+j]:
						backs = append(backs, o+j)
					default:
						fits = false
					}
				}
				if fits && agree >= 2 {
					for _, i := range backs {
						disputed[i] = true
					}
				}
			}
		}
	}
	n := 0
	for i := range len(sv) {
		if sv[i] != target[i] && !disputed[i] {
			n++
		}
	}
	return n
}

// alteredNumber looks, where no label names the document number, for the
// forger's way of changing it: an unlabelled word of the number's length
// that differs from it (by shape) in two to half of its characters, so
// that the rest is the same number, read alike in at least two readings
// with MinConf or in three with any confidence (Tesseract is rarely
// confident of a number it has no dictionary for: an altered passport
// number was read the same in four readings at 0.12–0.39), and no other
// such word read twice (nor one in the MRZ's optional data, others). It is
// looked for only when no reading of the page came within one character
// of the MRZ's number (findNumber), so a misread would have to change two
// characters alike in every reading; another number printed on the
// document (a personal or record number) differs in most characters, or
// in length. The numbered layouts (field "5." on its own, or no label at
// all) left an altered passport number G6148928 for G3146628 unread on
// independently generated photos (docs/accuracy.md).
func (z Zone) alteredNumber(target string, others []string) (string, float64, bool) {
	type cand struct {
		text             string
		reads, confident int
		conf             float64
	}
	cands := map[string]*cand{}
	for _, l := range z.Lines {
		if l.MRZ || l.Reread {
			continue
		}
		for _, w := range l.Words {
			t := fold(w.Text)
			sw := shape(t)
			if strings.ContainsAny(t, "<«‹") || len(sw) != len(target) || !strings.ContainsAny(sw, "0123456789") ||
				len(parseDates(t, DMY)) > 0 || len(parseDates(t, MDY)) > 0 {
				continue
			}
			if d := distance(sw, target); d < 2 || 2*d > len(target) || slices.ContainsFunc(others, func(o string) bool {
				return len(o) >= 4 && strings.Contains(shape(o), sw)
			}) {
				continue
			}
			c, ok := cands[sw]
			if !ok {
				c = &cand{text: t, conf: w.Conf}
				cands[sw] = c
			}
			c.reads++
			c.conf = max(c.conf, w.Conf)
			if w.Conf >= MinConf {
				c.confident++
			}
		}
	}
	var found *cand
	for _, c := range cands {
		if c.reads < 2 {
			continue // one reading of noise
		}
		if found != nil {
			return "", 0, false
		}
		found = c
	}
	if found == nil || found.confident < 2 && found.reads < 3 {
		return "", 0, false
	}
	return found.text, found.conf, true
}

// readsOf counts the words, outside the MRZ and the spots read again,
// whose shape is sv: how many readings of the page agree on a value.
func (z Zone) readsOf(sv string) int {
	n := 0
	for _, l := range z.Lines {
		if l.MRZ || l.Reread {
			continue
		}
		for _, w := range l.Words {
			if shape(fold(w.Text)) == sv {
				n++
			}
		}
	}
	return n
}

// findNumber looks for the document number among the printed words,
// compared by shape: exactly, inside a longer word or line, or, for
// numbers of 7 or more characters, within one misread, dropped or added
// character of a word or of two adjacent words (Tesseract drops a
// number's first letter when it touches a field's edge, or splits the
// number). One changed character of the number alone changes neither
// the holder's age nor the document's validity; a different number is
// still a contradiction (compareNumber).
func (z Zone) findNumber(target string) (string, bool) {
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		for i, w := range l.Words {
			cands := []string{w.Text}
			if i+1 < len(l.Words) {
				cands = append(cands, w.Text+" "+l.Words[i+1].Text)
			}
			for _, c := range cands {
				// '<' is the MRZ's filler, never printed in a number: a word
				// holding one is a piece of the zone that escaped the mask,
				// and the MRZ cannot confirm itself.
				if strings.ContainsAny(c, "<«‹") {
					continue
				}
				if sc := shape(c); strings.Contains(sc, target) || len(target) >= 7 && distance(sc, target) <= 1 {
					return c, true
				}
			}
		}
		if !strings.ContainsAny(l.Text, "<«‹") && strings.Contains(shape(l.Text), target) {
			return l.Text, true
		}
	}
	return "", false
}

var surnameLabels = append(slices.Clip(surnameWords), "1", "1.")

// surnameWords are surnameLabels without the field number.
var surnameWords = []string{"SURNAME", "SURNAMES", "NOM", "NAME", "APELLIDOS", "APELLIDO", "COGNOME", "ACHTERNAAM", "SOYADI",
	"NAZWISKO", "EFTERNAMN", "FAMILIENNAME", "SUKUNIMI", "ETTERNAVN", "EFTERNAVN", "APELIDO", "SLOINNE"}

// secondSurnameWords are surname label words read only as spelt, in the
// labels where they follow another language's: a Belgian card's "NOM /
// NAAM", whose Dutch half was taken for the value where the surname was
// not read, accused a forged card for NAAM rather than for its forged
// name, and would have accused a genuine card whose surname glare hid
// (fresh seed 70); the others are the words of the European languages
// whose cards print such labels. Not within two edits, as surnameWords
// are: a review found the given names HAVARD and EDVARDS so close to
// PAVARDE and UZVARDS that a given-names line became the surname's label
// and a glared surname was accused for the nationality's label below
// it; and a forged PAVARD or MAAS would no longer have been accused.
var secondSurnameWords = []string{"NAAM", "NACHNAME", "PRIJMENI", "PRIEZVISKO", "VEZETEKNEV", "PREZIME", "PRIIMEK", "PAVARDE",
	"UZVARDS", "PEREKONNANIMI", "SOBRENOME", "KUNJOM"}

// surnameLabelWord reports a word of surnameLabels or secondSurnameWords,
// as spelt.
func surnameLabelWord(t string) bool {
	return slices.Contains(surnameLabels, t) || slices.Contains(secondSurnameWords, t)
}

var givenLabels = []string{"GIVEN", "NAMES", "PRENOMS", "PRENOM", "VORNAMEN", "VORNAME", "NOMBRE", "NOMBRES", "NOMI", "NOME",
	"VOORNAMEN", "IMIONA", "FORNAMN", "ETUNIMET", "FORNAVN", "REAMHAINM", "REAMHAINMNEACHA", "FIRST", "ADI", "2", "2."}

func (z Zone) compareSurname(want string) Field {
	fd := Field{Name: "surname", Status: Unread, MRZ: want}
	if len(strings.Fields(want)) == 0 {
		return fd
	}
	if seen, ok := z.findName(want, nameLike, false); ok {
		fd.Status, fd.Printed = Match, strings.Join(seen, " ")
		return fd
	}
	// A field number alone ("1", "1.") is a label only on a page whose
	// surname label has no words: a speck read "1" above a Mexican
	// passport's header, where APELLIDOS - SURNAME labels the surname,
	// took the header's garbled MEXICANOS for the surname and failed the
	// genuine passport as potential_fraud (independently generated photos,
	// docs/accuracy.md, fourteenth pass).
	worded := slices.ContainsFunc(z.Lines, func(l Line) bool {
		return !l.MRZ && slices.ContainsFunc(labelTokens(l.Text), surnameWord)
	})
	// Nor is a field number that shares its line with another field's
	// label: a speck read "1" beside a German passport's garbled
	// "AUSSTELLUNGSDATUM/DATE OF ISSUE BEHÖRDE/AUTHORITY", its surname
	// label misread, took the authority LANDESHAUPTSTADT MÜNCHEN below
	// it for the surname and failed the genuine passport as
	// potential_fraud (independently generated photos, docs/accuracy.md,
	// twenty-first pass).
	//
	// A value found under a field number alone never accuses: that its
	// label is the surname's rests on one glyph, and a misread speck
	// makes one.
	isLabel := func(t []string) bool {
		if hasAny(t, givenLabels) {
			return false
		}
		return slices.ContainsFunc(t, surnameWord) || !worded && hasAny(t, surnameLabels) && !otherLabel(t)
	}
	isValue := func(s string) bool {
		// A value, not the rest of a label ("SURNAME" / "NOM" read apart),
		// nor another field's: names hold no digits, and a card's height
		// "175 CM" read as "5 CM" under its surname's number (a numbered
		// layout, blurred by motion) failed a genuine card as
		// potential_fraud (independently generated photos).
		// Nor the punctuation that follows a label ("SLOINNE -" over
		// "SURNAME", an Irish passport's bilingual label): a forged
		// surname beside it went to review for the value "-".
		// Nor the surname's label word misread (surnameWord):
		// "APELLIDOS / SURNAI", a Mexican card's label under glare, gave
		// "/ SURNAI" as the value and failed the genuine card as
		// potential_fraud (independently generated photos,
		// docs/accuracy.md, twenty-first pass). Not any label word
		// within two edits (labelLike): HUBER and ROMERO are two from
		// NUMBER and NUMERO, and their forgeries went to review.
		return !isLabelLine(s) && !strings.ContainsAny(s, "0123456789") && !notAName(s) && len(lettersOf(s)) >= 2 &&
			!slices.ContainsFunc(strings.FieldsFunc(s, notLetter), surnameWord)
	}
	v, conf, ok := z.valueFor(isLabel, isValue)
	if !ok {
		return fd
	}
	fd.Printed, fd.Conf = v, fmt.Sprintf("%.2f", conf)
	got := lettersOf(v)
	exp := strings.ReplaceAll(want, " ", "")
	// A value of one or two letters is more often a fragment (of a label,
	// of a glared name) than a surname: "- AX" read under a Brazilian
	// passport's surname label failed FERREIRA BARBOSA as potential_fraud
	// (independently generated photos, docs/accuracy.md, tenth pass).
	if !worded {
		fd.Status = Uncertain
	} else if d := distance(got, exp); conf >= MinConf && d*3 > max(len(exp), len(got)) && len(got) >= 3 && !partOf(got, exp) {
		fd.Status = Mismatch
	} else {
		fd.Status = Uncertain
		if a, ok := agreed(z.valuesFor(isLabel, isValue)); ok && distance(a, exp)*3 > max(len(exp), len(a)) && !partOf(a, exp) {
			fd.Status, fd.Printed, fd.Conf = Mismatch, a, ""
		}
	}
	return fd
}

// SurnameDiffers reports whether printed contradicts the MRZ's surname as
// Compare's mismatch does — three letters or more, differing in more than
// a third of them — even when each character of mrzSurname the reader was
// unsure of may be the runner-up it allowed there (alt, one per character,
// spaces included; 0 where it was sure): a difference the reader's doubts
// cannot explain. A Swedish card's MRZ read OLSSON with its O unsure (Q
// the runner-up, 0.47) said nothing against the forged PERSSON printed on
// it, which differs from OLSSON and QLSSON alike in three letters
// (independently generated photos, docs/accuracy.md, twenty-fifth pass).
func SurnameDiffers(printed, mrzSurname string, alt []byte) bool {
	if len(alt) != len(mrzSurname) {
		return false
	}
	var exp, ea []byte
	for i := 0; i < len(mrzSurname); i++ {
		if mrzSurname[i] != ' ' {
			exp, ea = append(exp, mrzSurname[i]), append(ea, alt[i])
		}
	}
	got := lettersOf(printed)
	return len(got) >= 3 && altDistance(got, string(exp), ea)*3 > max(len(exp), len(got))
}

// surnameWord reports a label token that is one of surnameWords or
// secondSurnameWords, or one of surnameWords of six letters or more
// misread in up to two (a third of its letters):
// an Indian passport's "1. SURNAME" was read "1, SUMAME" and "1. SUMAME."
// in every reading of a mild photo (independently generated photos,
// docs/accuracy.md, twenty-first pass). Shorter words (NAME, NOM) must be
// read exactly: too many other words are two edits from them.
//
// A token at least as near a given-names label word of five letters or
// more is that label, not the surname's: a Swedish permit's FÖRNAMN,
// read FOERNAMN, is two edits from EFTERNAMN and one from FORNAMN; taken
// for the surname's label (EFTERNAMN itself lost under glare), it made
// the given name VOLODYMYR below it the surname and failed the genuine
// permit as potential_fraud (independently generated photos, fresh seed
// 64, docs/accuracy.md, thirtieth pass).
func surnameWord(t string) bool {
	if slices.Contains(surnameWords, t) || slices.Contains(secondSurnameWords, t) {
		return true
	}
	if len(t) < 5 {
		return false
	}
	near := math.MaxInt
	for _, w := range surnameWords {
		if d := distance(t, w); len(w) >= 6 && d <= min(2, len(w)/3) {
			near = min(near, d)
		}
	}
	return near != math.MaxInt && !slices.ContainsFunc(givenLabels, func(w string) bool {
		return len(w) >= 5 && distance(t, w) <= near
	})
}

// partOf reports a printed surname (letters only) that is a piece of the
// MRZ's, or holds it whole: the same name cut short where glare or the
// edge of what OCR read began. Every reading of a genuine Portuguese
// passport under glare read COSTA ALVES as "COS" (independently
// generated photos, docs/accuracy.md, eleventh pass); a forger gains
// nothing by printing part of the holder's own name.
func partOf(printed, mrzSurname string) bool {
	return strings.Contains(mrzSurname, printed) || strings.Contains(printed, mrzSurname)
}

// agreed returns the value (its letters) that most of a field's labelled
// values, one per reading of the page, agree on: at least three of them,
// and more than half of those of three letters or more that are no label
// word misread (within two edits of one); shorter ones are fragments. The first reading of a forged surname under its label may be
// a fragment ("SU", "(GEETA,") where the other readings agree on the
// forger's name (LOPEZ MARTINEZ read whole three times): independently
// generated photos, docs/accuracy.md.
func agreed(values []string) (string, bool) {
	counts := map[string]int{}
	best, n := "", 0
	for _, v := range values {
		k := lettersOf(v)
		if len(k) < 3 || labelLike(k) {
			continue
		}
		n++
		counts[k]++
		if counts[k] > counts[best] {
			best = k
		}
	}
	if counts[best] < 3 || 2*counts[best] <= n {
		return "", false
	}
	return best, true
}

// labelLike reports letters within two edits of a label or title word of
// four letters or more ("SURNAM", "APELIDOSS").
func labelLike(k string) bool {
	for _, set := range [][]string{surnameLabels, givenLabels, numberLabels, documentWords} {
		for _, w := range set {
			if len(w) >= 4 && distance(k, w) <= 2 {
				return true
			}
		}
	}
	return false
}

// NamePrinted reports whether every part of name (an MRZ name, parts
// separated by spaces) of two or more letters is printed outside the MRZ,
// the same but for one misread (by shape) in six letters. A name with no
// such part is not printed. It is stricter than the surname's comparison,
// because it is evidence that a reading is right: a short name within
// one letter is found in too many words (JANE in "01 JAN 2030").
//
// When cut, the name filled its MRZ field (mrz.Fields.NameFull), where a
// longer name is cut short: its last part is then found as the start of
// a printed word (JAVIE in JAVIER), the same but for one misread in six.
func (z Zone) NamePrinted(name string, cut bool) bool {
	like := func(printed printedWord, part string) bool {
		return distance(nameShape(printed.text), nameShape(part)) <= len(part)/6
	}
	_, ok := z.findName(name, like, cut)
	return ok
}

// printedWord is a word of the visual zone as findName compares it: its
// letters folded to capitals, and whether OCR read any of them in lower
// case.
type printedWord struct {
	text  string
	lower bool
}

// findName returns the printed words that are name's parts, as like
// says, and whether all were found. When cut, the last part is compared
// with the printed words' starts of its length.
func (z Zone) findName(name string, like func(printed printedWord, part string) bool, cut bool) ([]string, bool) {
	var words []printedWord
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		for _, w := range l.Words {
			lower := strings.IndexFunc(w.Text, unicode.IsLower) >= 0
			f := fold(w.Text)
			ts := strings.FieldsFunc(f, notLetter)
			if strings.ContainsAny(f, apostropheMarks) {
				// The MRZ leaves a name's apostrophe out (O'NEILL is
				// ONEILL there): the word is also compared whole.
				ts = append(ts, strings.FieldsFunc(apostrophes.ReplaceAllString(f, "$1$2"), notLetter)...)
			}
			for _, t := range ts {
				words = append(words, printedWord{t, lower})
			}
		}
	}
	var seen []string
	parts := strings.Fields(name)
	for k, p := range parts {
		if len(p) < 2 {
			continue
		}
		i := slices.IndexFunc(words, func(w printedWord) bool {
			if cut && k == len(parts)-1 && len(w.text) > len(p) {
				w.text = w.text[:len(p)]
			}
			return like(w, p)
		})
		if i < 0 {
			return nil, false
		}
		seen = append(seen, words[i].text)
	}
	return seen, len(seen) > 0
}

// apostrophes finds an apostrophe between two letters, as printed or as
// OCR reads it: a quote, a backtick or an asterisk ("O*NETLL" for O'NEILL
// on a mild photo of an independently generated Irish card).
var apostrophes = regexp.MustCompile("([A-Z])[" + apostropheMarks + "]([A-Z])")

// apostropheMarks are the marks apostrophes looks for between letters.
const apostropheMarks = "'’‘´`*\""

func notLetter(r rune) bool { return !(r >= 'A' && r <= 'Z') }

// lettersOf is s's capital letters alone, as a surname is compared.
func lettersOf(s string) string { return strings.Join(strings.FieldsFunc(s, notLetter), "") }

// nameLike compares a printed word with an MRZ name part: at most one edit
// per four letters (misreads, and the MRZ's transliteration: MÜLLER is
// MUELLER there), not counting letters the MRZ's OCR-B glyphs confuse
// (O, Q and D; I and L; U and V; see shape): a genuine card's YAMAMOTO was
// read TAMAMDTD from its MRZ (independently generated photos,
// docs/accuracy.md), where a surname of the same shape but another name
// is not a forgery anyone could use. A letter one word has and the other
// lacks must be one that misreading or transliteration explains
// (nameDistance).
func nameLike(printed printedWord, mrzPart string) bool {
	if printed.text == mrzPart {
		return true
	}
	if len(printed.text) < 2 {
		return false
	}
	return nameDistance(nameShape(printed.text), nameShape(mrzPart), !printed.lower) <= len(mrzPart)/4
}

// nameDistance is the edit distance between a printed name and the MRZ's
// (both as nameShape gives them) where a letter only one of them has is
// an edit only when reading or the MRZ's transliteration explains it: at
// either end of the word (a first or last letter lost at glare's edge or
// split off at an apostrophe: ARCIA for GARCIA, SULLIVAN for O'SULLIVAN,
// RIBEIR for RIBEIRO, all on genuine documents), an E after A, O or U in
// the MRZ (MÜLLER, LINDSTRÖM transliterated), or a doubled letter read
// once. Any other letter inside the word is not a misread but another
// name: a forged Turkish card printed ASLAN where its MRZ said ARSLAN and
// was approved, one edit in six letters (independently generated photos,
// docs/accuracy.md, twenty-sixth pass).
//
// A letter read in place of another is an edit when the two look alike
// (lookAlike: JANSCN for JANSEN on a genuine card, an MRZ's TAMAMDTD for
// YAMAMOTO) or, unless caps, when the printed word was read in lower case,
// whose round letters (a, e, o, c) OCR confuses among themselves. Any
// other substitution is another name, not a misread: MEYER for MAYER,
// HANSEN for JANSEN, SMYTH for SMITH are names of their own, and a forger
// who prints one of them on a genuine document's data page was approved
// until 2026-12-01 (one edit in five letters, within nameLike's one in
// four). Such a word is no match, and compareSurname, finding it one
// letter from the MRZ's, leaves the surname uncertain: review.
func nameDistance(printed, mrz string, caps bool) int {
	n, m := len(printed), len(mrz)
	doubled := func(s string, k int) bool {
		return k > 0 && s[k] == s[k-1] || k+1 < len(s) && s[k] == s[k+1]
	}
	// extra reports whether s[k], a letter the other word lacks where
	// that word's reading stands at other (of otherLen letters), is
	// explained.
	extra := func(s string, k, other, otherLen int, isMRZ bool) bool {
		return other == 0 || other == otherLen || doubled(s, k) ||
			isMRZ && s[k] == 'E' && k > 0 && strings.IndexByte("A0V", s[k-1]) >= 0
	}
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := 1; j <= m; j++ {
		prev[j] = prev[j-1] + 1 // a leading MRZ letter: explained
	}
	for i := 1; i <= n; i++ {
		cur[0] = prev[0] + 1 // a leading printed letter: explained
		for j := 1; j <= m; j++ {
			cost := 1
			if printed[i-1] == mrz[j-1] {
				cost = 0
			} else if caps && !lookAlike(printed[i-1], mrz[j-1]) {
				cost = n + m + 1 // another letter: never a misread
			}
			best := prev[j-1] + cost
			if extra(printed, i-1, j, m, false) {
				best = min(best, prev[j]+1)
			}
			if extra(mrz, j-1, i, n, true) {
				best = min(best, cur[j-1]+1)
			}
			cur[j] = best
		}
		prev, cur = cur, prev
	}
	return prev[m]
}

// lookAlikes are the pairs of capitals, as nameShape writes them (O, Q
// and D as 0, I and L as 1, S as 5, B as 8, Z as 2, G as 6, U as V), that
// OCR reads one for the other in a printed name or an MRZ: letters that
// share most of their strokes, so that blur, glare or a worn print leaves
// one looking like the other (round C, E, G, O; E, F, P, R, B with bars
// lost or gained; I, J, L, T, Y as stems; H, M, N, W, V and K, X, Y as
// diagonals and uprights). A vowel for a vowel (A, E, O) or a consonant
// for an unlike one (H and J, C and K, D and T) is left out on purpose:
// those are how names differ (MAYER, MEYER; HANSEN, JANSEN; SCHMIDT,
// SCHMITT). Written by hand: no library lists OCR confusions for Latin
// capitals, and Tesseract exposes its character alternatives only
// through its C API.
var lookAlikes = []string{"0C", "0V", "06", "C6", "CE", "EF", "E8", "F8", "FP", "PR", "R8", "P8", "RK",
	"1T", "1J", "1E", "1F", "TY", "TJ", "VY", "VW", "V0", "HN", "HM", "MN", "NW", "MW", "KX", "XY"}

// lookAlike reports whether capitals a and b (as nameShape writes them)
// are read one for the other: lookAlikes.
func lookAlike(a, b byte) bool {
	return slices.Contains(lookAlikes, string([]byte{a, b})) || slices.Contains(lookAlikes, string([]byte{b, a}))
}

func hasAny(tokens, words []string) bool {
	for _, t := range tokens {
		if slices.Contains(words, t) {
			return true
		}
	}
	return false
}

// valueFor finds a labelled value: a line whose label tokens satisfy
// isLabel, and the value after the label on the same line or, else, on the
// nearest line below it that overlaps it horizontally. isValue filters
// candidates.
func (z Zone) valueFor(isLabel func([]string) bool, isValue func(string) bool) (string, float64, bool) {
	for i := range z.Lines {
		if v, conf, ok := z.valueAt(i, isLabel, isValue); ok {
			return v, conf, true
		}
	}
	return "", 0, false
}

// valuesFor is every labelled value valueFor could find, one per label
// line, in the order of the lines: a value per reading of the page.
func (z Zone) valuesFor(isLabel func([]string) bool, isValue func(string) bool) []string {
	var out []string
	for i := range z.Lines {
		if v, _, ok := z.valueAt(i, isLabel, isValue); ok {
			out = append(out, v)
		}
	}
	return out
}

// valueAt is valueFor's value for line i, when it is a label line.
func (z Zone) valueAt(i int, isLabel func([]string) bool, isValue func(string) bool) (string, float64, bool) {
	l := z.Lines[i]
	if l.MRZ || l.Reread {
		return "", 0, false
	}
	if !isLabel(labelTokens(l.Text)) {
		return "", 0, false
	}
	// Same line: the words after the last label word.
	for k := len(l.Words) - 1; k > 0; k-- {
		rest := ""
		for _, w := range l.Words[k:] {
			rest += fold(w.Text) + " "
		}
		rest = strings.TrimSpace(rest)
		if isValue(rest) && roleOfText(rest) == RoleNone && !isLabel([]string{rest}) {
			if k > 0 && isLabel([]string{strings.TrimSuffix(fold(l.Words[k-1].Text), ".")}) {
				return rest, l.Conf, true
			}
		}
	}
	// Right: the value after its label on the same row, read by OCR as
	// a line of its own because of the gap between them (labels left
	// of values: residence permits, licences).
	below, belowConf, hasBelow := z.valueBelow(i, isValue)
	if v, conf, ok := z.valueRight(i, isLabel, isValue); ok {
		if hasBelow && below != v {
			// Two candidates for one label: neither is read with the
			// confidence a verdict needs.
			conf = 0
		}
		return v, conf, true
	}
	if hasBelow {
		return below, belowConf, true
	}
	return "", 0, false
}

// labelTokens splits a line into the words a label is recognised by:
// at spaces, slashes, colons and commas, each word without its final
// full stop. A comma between digits is a decimal one and splits nothing:
// a German card's height "1,76 M" split into "1" was taken for a numbered
// layout's surname label "1.", and the eye colour under it, misread
// "SOME -GRAU" in every reading, failed a genuine card whose glared
// surname was not read as potential_fraud (independently generated
// photos, docs/accuracy.md, fourteenth pass).
func labelTokens(s string) []string {
	r := []rune(s)
	var tokens []string
	start := -1
	for i := 0; i <= len(r); i++ {
		split := i == len(r) || r[i] == ' ' || r[i] == '/' || r[i] == ':' ||
			r[i] == ',' && !(i > 0 && i+1 < len(r) && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1]))
		switch {
		case split && start >= 0:
			tokens = append(tokens, strings.TrimSuffix(string(r[start:i]), "."))
			start = -1
		case !split && start < 0:
			start = i
		}
	}
	return tokens
}

// valueBelow returns the value under label line i: the first line under it
// that overlaps it, within two of its heights; another label there means
// the value was not read (the next field's value is never taken for it).
func (z Zone) valueBelow(i int, isValue func(string) bool) (string, float64, bool) {
	l := z.Lines[i]
	h := max(l.Box.Dy(), 1)
	for j := i + 1; j < len(z.Lines); j++ {
		b := z.Lines[j]
		dy := b.Box.Min.Y - l.Box.Max.Y
		if dy > 2*h {
			break
		}
		if b.MRZ || b.Reread || dy < -h/2 || b.Box.Max.X < l.Box.Min.X || b.Box.Min.X > l.Box.Max.X {
			continue
		}
		if roleOfText(b.Text) != RoleNone || isLabelLine(b.Text) || namesLabel(b.Text) {
			break
		}
		if isValue(b.Text) {
			return b.Text, b.Conf, true
		}
	}
	return "", 0, false
}

// valueRight returns the words nearest to the right of label line i on
// its row, within six of its heights (values may stand in a column of
// their own; a label on two lines, labelBelow, counts both lines'
// height), up to the next wide gap, when they are a value (isValue) and
// not another label.
func (z Zone) valueRight(i int, isLabel func([]string) bool, isValue func(string) bool) (string, float64, bool) {
	l := z.Lines[i]
	h := max(l.Box.Dy(), 1)
	box, cont := l.Box, z.labelBelow(i, isLabel)
	if cont >= 0 {
		box = box.Union(z.Lines[cont].Box)
	}
	bestLine, bestWord, bestX := -1, -1, 1<<30
	for j, a := range z.Lines {
		if j == i || j == cont || a.MRZ || a.Reread {
			continue
		}
		for k, w := range a.Words {
			overlap := min(w.Box.Max.Y, box.Max.Y) - max(w.Box.Min.Y, box.Min.Y)
			if 2*overlap < min(box.Dy(), max(w.Box.Dy(), h)) || w.Box.Min.X < box.Max.X-h/4 || w.Box.Min.X-box.Max.X > 6*box.Dy() {
				continue
			}
			if w.Box.Min.X < bestX {
				bestLine, bestWord, bestX = j, k, w.Box.Min.X
			}
		}
	}
	if bestLine < 0 {
		return "", 0, false
	}
	words := z.Lines[bestLine].Words
	to := bestWord + 1
	for to < len(words) && words[to].Box.Min.X-words[to-1].Box.Max.X <= 2*h {
		to++
	}
	var parts []string
	for _, w := range words[bestWord:to] {
		parts = append(parts, fold(w.Text))
	}
	v := strings.Join(parts, " ")
	// A field's reference number ("(1)" after "Surname/Nom") is part of
	// the label, not its value.
	if a := shape(v); len(a) < 2 || len(a) <= 2 && strings.Trim(a, "0123456789") == "" {
		return "", 0, false
	}
	if roleOfText(v) != RoleNone || isLabelLine(v) || isLabel([]string{strings.TrimSuffix(v, ".")}) || !isValue(v) {
		return "", 0, false
	}
	return v, z.Lines[bestLine].Conf, true
}

// labelBelow returns the line that continues label line i on the next
// line (a bilingual label, "COGNOME/" over "SURNAME", left of its value),
// or -1: a line of label words only, one of them the same field's, starting
// under it within half its height, and left-aligned with it. A word of
// that field's label misread as isLabel allows it ("SUMAME" under
// "SOYADI -", a Turkish card's label left of its value) counts as a label
// word: with one line's height only, the value right of the two was too
// far to be this label's, and a forged surname went to review
// (independently generated photos, docs/accuracy.md, twenty-fourth pass).
func (z Zone) labelBelow(i int, isLabel func([]string) bool) int {
	l := z.Lines[i]
	h := max(l.Box.Dy(), 1)
	for j, b := range z.Lines {
		if j == i || b.MRZ || b.Reread {
			continue
		}
		dy, dx := b.Box.Min.Y-l.Box.Max.Y, b.Box.Min.X-l.Box.Min.X
		if dy < -h/4 || dy > h/2 || dx < -h || dx > h {
			continue
		}
		tokens := strings.FieldsFunc(b.Text, notLetter)
		labels := len(tokens) > 0 && !slices.ContainsFunc(tokens, func(t string) bool {
			return !isLabelLine(t) && !isLabel([]string{t})
		})
		if labels && isLabel(tokens) {
			return j
		}
	}
	return -1
}

// documentWords name a document or its issuer in the titles printed on
// it, in the languages of the documents SPEC serves.
var documentWords = []string{"IDENTITY", "IDENTITE", "IDENTIDAD", "IDENTITA", "IDENTITEIT", "CARD", "CARTE", "CARTA", "KAART",
	"PASSPORT", "PASSEPORT", "PASAPORTE", "PASSAPORTO", "PASPOORT", "REISEPASS", "AUSWEIS", "PERSONALAUSWEIS", "DOCUMENT",
	"DOCUMENTO", "DOKUMENT", "REPUBLIC", "REPUBLIQUE", "REPUBLIK", "REPUBLICA", "KINGDOM", "ROYAUME", "NATIONAL", "NATIONALE",
	"RESIDENCE", "PERMIT", "TITRE", "SEJOUR", "AUFENTHALTSTITEL", "DRIVING", "LICENCE", "LICENSE", "FUHRERSCHEIN", "PERMIS"}

// notAName reports a value that holds a word of four letters or more
// naming a field or the document: a title or a label, not a name. The
// header "IDENTITY CARD", taken for the value of a French card's surname
// under glare, failed a genuine card as potential_fraud (independently
// generated photos, docs/accuracy.md). Shorter words are left alone:
// particles such as DE, LA, VAN are parts of surnames too.
func notAName(s string) bool {
	for _, t := range strings.FieldsFunc(s, notLetter) {
		if len(t) >= 4 && (slices.Contains(documentWords, t) || surnameLabelWord(t) ||
			slices.Contains(givenLabels, t) || slices.Contains(numberLabels, t)) {
			return true
		}
	}
	return false
}

// namesLabel reports a line holding a given-names label word of five
// letters or more (NAMES, PRENOMS, VORNAMEN), whatever else it holds: the
// given names' label, a word of it misread ("GJVEN NAMES / PRENOMS" on a
// Canadian passport, independently generated), which isLabelLine does not
// take for a label. What lies below it is the given names, never another
// field's value.
func namesLabel(s string) bool {
	return slices.ContainsFunc(strings.FieldsFunc(s, notLetter), func(t string) bool {
		return len(t) >= 5 && slices.Contains(givenLabels, t)
	})
}

// otherLabel reports label tokens that hold a word naming another field
// than the name: a date's (birth, expiry, issue), the number's, or one of
// otherLabelWords.
func otherLabel(t []string) bool {
	return roleOfText(strings.Join(t, " ")) != RoleNone || hasAny(t, numberLabels) || hasAny(t, otherLabelWords)
}

// otherLabelWords are label words of fields the comparison does not read.
var otherLabelWords = []string{"DATE", "NATIONALITY", "NATIONALITE", "SEX", "SEXE", "PLACE", "LIEU", "TYPE", "CODE", "AUTHORITY", "AUTORITE"}

// isLabelLine reports a line made only of label words (of any field).
func isLabelLine(s string) bool {
	tokens := strings.FieldsFunc(s, notLetter)
	if len(tokens) == 0 {
		return false
	}
	for _, t := range tokens {
		if !surnameLabelWord(t) && !slices.Contains(givenLabels, t) && !slices.Contains(numberLabels, t) &&
			!slices.Contains(otherLabelWords, t) && t != "OF" && t != "DE" {
			return false
		}
	}
	return true
}

// distance is the Levenshtein distance between a and b (bytes).
func distance(a, b string) int { return altDistance(a, b, nil) }

// altDistance is distance where a character of b also matches its
// alternative in alt (nil, or 0 at a position: none).
func altDistance(a, b string, alt []byte) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] || alt != nil && alt[j-1] != 0 && a[i-1] == alt[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ResolveNumber looks for the document number as printed when the MRZ's
// reading of it (read, at most nine characters) may be a misread: a word
// of the page of read's length, read alike twice or once with MinConf,
// that differs from read only where alt (per character of read) holds the
// reader's runner-up — set only where it was unsure — and that runner-up
// has the printed character's shape, and whose ICAO check digit is
// read's. It returns that word, or false when there is none or more than
// one.
//
// Two misreads verify a check digit one time in ten, and the comparison
// then only doubts the number (engine's settle): a genuine passport's
// 18CX82875 was read 1R<X8R875 from a tilted photo, each misread
// character's runner-up the printed one (independently generated photos).
// A printed number that is the reader's own second choice where it was
// unsure, and that the check digit verifies too, is what the zone holds;
// a forger's altered number would have to fall on the reader's doubts and
// runner-ups and verify the check digit as well.
func (z Zone) ResolveNumber(read string, alt []byte) (string, bool) {
	if len(read) == 0 || len(read) > 9 || len(alt) < len(read) {
		return "", false
	}
	pad := func(s string) string { return s + strings.Repeat("<", 9-len(s)) }
	check := mrz.CheckDigit(pad(read))
	type cand struct {
		reads int
		sure  bool
	}
	cands := map[string]*cand{}
	for _, l := range z.Lines {
		if l.MRZ {
			continue
		}
		for _, w := range l.Words {
			t := strings.Trim(fold(w.Text), ".:,;")
			if len(t) != len(read) || t == read {
				continue
			}
			ok := true
			for i := 0; i < len(t) && ok; i++ {
				c := t[i]
				ok = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
				if ok && c != read[i] {
					ok = alt[i] != 0 && shape(string(c)) == shape(string(alt[i]))
				}
			}
			if !ok || mrz.CheckDigit(pad(t)) != check {
				continue
			}
			c, found := cands[t]
			if !found {
				c = &cand{}
				cands[t] = c
			}
			c.reads++
			c.sure = c.sure || w.Conf >= MinConf
		}
	}
	if len(cands) != 1 {
		return "", false
	}
	for t, c := range cands {
		if c.reads >= 2 || c.sure {
			return t, true
		}
	}
	return "", false
}
