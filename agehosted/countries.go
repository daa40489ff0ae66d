package agehosted

import (
	"slices"
	"time"

	"github.com/verifyd/verifyd"
)

// Country is what one age-flow country requires. The table below is the
// service's policy; docs/age.md ("Country requirements") explains each row
// from the regulator research in COUNTRIES.md and says where nothing was
// found and a conservative choice was made.
type Country struct {
	// Code is SPEC's 2-letter country code (gb, de, fr, us).
	Code string
	// Methods are the accepted methods, in the order the page offers them.
	// A stored proof made with another method does not count here.
	Methods []verifyd.AgeMethod
	// Validity is how long after its decision an adult proof is reused;
	// after that the person proves their age again.
	Validity time.Duration
	// LoginEachUse requires the password in every flow: a session from an
	// earlier visit does not count (authentication at each use).
	LoginEachUse bool
}

// Accepts reports whether proofs made with m count in the country.
func (c Country) Accepts(m verifyd.AgeMethod) bool { return slices.Contains(c.Methods, m) }

// Countries is the requirements table, by SPEC's country code.
var Countries = map[string]Country{
	// gb (Ofcom, Online Safety Act): methods from Ofcom's list of those
	// capable of being highly effective that verifyd can offer (photo-ID
	// matching, credit card, mobile operator, e-mail-based estimation); no
	// self-declaration. No re-use period was found: 30 days, our choice.
	"gb": {Code: "gb", Methods: []verifyd.AgeMethod{verifyd.AgeMethodDocument, verifyd.AgeMethodCreditCard,
		verifyd.AgeMethodMobileOperator, verifyd.AgeMethodEmailEstimation}, Validity: 30 * 24 * time.Hour},
	// de (KJM, JMStV): only strong identification (ID document + selfie
	// match + liveness), which may be reused; authentication (the password)
	// at each use. No re-identification interval was found: one year, our
	// choice.
	"de": {Code: "de", Methods: []verifyd.AgeMethod{verifyd.AgeMethodDocument},
		Validity: 365 * 24 * time.Hour, LoginEachUse: true},
	// fr (Arcom): ID documents checked for authenticity and ownership; bank
	// cards only tolerated until April 2025; verification at each
	// consultation (45 days and two months were rejected). Exact length not
	// found: 60 minutes, our choice, and the password at each use.
	"fr": {Code: "fr", Methods: []verifyd.AgeMethod{verifyd.AgeMethodDocument},
		Validity: time.Hour, LoginEachUse: true},
	// us (state laws; Tennessee caps a verified session at 60 minutes):
	// government ID, or a commercially reasonable method on transactional
	// data (credit card, mobile operator). E-mail-based estimation is an
	// estimate, not a check of records: left out, our choice.
	"us": {Code: "us", Methods: []verifyd.AgeMethod{verifyd.AgeMethodDocument, verifyd.AgeMethodCreditCard,
		verifyd.AgeMethodMobileOperator}, Validity: time.Hour},
}

// CountryOf returns the requirements of a country code.
func CountryOf(code string) (Country, bool) {
	c, ok := Countries[code]
	return c, ok
}
