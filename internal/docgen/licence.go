package docgen

import (
	"math/rand/v2"

	"github.com/verifyd/verifyd/mrz"
)

// renderLicence draws a driving licence (Spec.Licence): an ID-1 card in
// the EU model's layout, with no MRZ.
func renderLicence(spec Spec) (*Document, error) {
	ppm := spec.PxPerMM
	if ppm <= 0 {
		ppm = DefaultPxPerMM
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x11ce_c0de))
	lay := layoutFor(mrz.TD1)
	// No MRZ: the fields may use the whole card.
	lay.mrzCentres = []float64{lay.h + 10}
	mm := func(v float64) float64 { return v * ppm }
	f := spec.Fields
	img, ink, labelInk := startCard(spec, lay, ppm, rng, "DRIVING LICENCE", f.IssuingState)
	style := spec.DateStyle
	if style == DateNamed {
		style = DateDotted
	}
	issue := mrz.Date{Year: f.ExpiryDate.Year - 15, Month: f.ExpiryDate.Month, Day: min(f.ExpiryDate.Day, 28)}
	rows := [][2]string{
		{"1.", f.Surname},
		{"2.", f.GivenNames},
		{"3.", showDate(f.BirthDate, "", style) + "  " + cities[rng.IntN(len(cities))]},
		{"4a.", showDate(issue, "", style) + "   4c. DVLA"},
		{"4b.", showDate(f.ExpiryDate, "", style)},
		{"5.", f.DocumentNumber},
		{"9.", "AM/A/B/BE"},
	}
	vf, lf := textFace(true, mm(lay.value*0.9)), textFace(false, mm(lay.value*0.8))
	y := lay.fy0 + 2
	for _, r := range rows {
		x := drawText(img, lf, mm(lay.fx0), mm(y), r[0], labelInk)
		drawText(img, vf, x+mm(1.2), mm(y), r[1], ink)
		y += lay.value * 1.45
	}
	cutCorners(img, mm(lay.corner))
	return &Document{Image: img, Format: mrz.TD1, PxPerMM: ppm}, nil
}
