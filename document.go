package verifyd

import (
	"slices"
	"strings"
)

// DocumentType is the kind of identity document (SPEC "Document").
type DocumentType string

// The document types of SPEC.md, spelled as on the wire.
const (
	DocIDCard          DocumentType = "IdCard"
	DocDriverLicense   DocumentType = "DriverLicense"
	DocPassport        DocumentType = "Passport"
	DocResidencePermit DocumentType = "ResidencePermit"
)

// DocumentTypes lists every document type.
var DocumentTypes = []DocumentType{DocIDCard, DocDriverLicense, DocPassport, DocResidencePermit}

// Valid reports whether t is one of SPEC's document types.
func (t DocumentType) Valid() bool {
	for _, v := range DocumentTypes {
		if t == v {
			return true
		}
	}
	return false
}

// NeedsBack reports whether the back of the document must be submitted.
func (t DocumentType) NeedsBack() bool { return t != DocPassport }

// documentCountries is SPEC's list of allowed document country codes.
var documentCountries = func() map[string]bool {
	const list = "afg alb dza and ago aia atg arg arm aus aut aze bhs bhr bgd brb blr bel blz ben bmu btn bol bih " +
		"bwa bra brn bgr bfa bdi cpv khm cmr can cym caf tcd chl chn col com cog cod cri hrv cub cyp cze civ dnk " +
		"dji dma dom ecu egy slv gnq eri est swz eth fji fin fra pyf gab gmb geo deu gha gib grc grd gtm gin gnb " +
		"guy hti vat hnd hkg hun isl ind idn irn irq irl imn isr ita jam jpn jor kaz ken kir prk kor rks kwt kgz " +
		"lao lva lbn lso lbr lby lie ltu lux mdg mwi mys mdv mli mlt mrt mus mex mda mco mng mne msr mar moz mmr " +
		"nam nru npl nld nzl nic ner nga mkd nor omn pak plw pse pan png pry per phl pol prt qat rou rus rwa shn " +
		"kna lca vct wsm smr stp sau sen srb syc sle sgp svk svn slb som zaf ssd esp lka sdn sur swe che syr twn " +
		"tjk tza tha tls tgo ton tto tun tur tkm tca tuv uga ukr are gbr usa ury uzb vut ven vnm vgb yem zmb zwe"
	m := map[string]bool{}
	for _, c := range strings.Fields(list) {
		m[c] = true
	}
	return m
}()

// ValidDocumentCountry reports whether code is in SPEC's list. Codes are
// lowercase on the wire; an uppercase code is not accepted.
func ValidDocumentCountry(code string) bool { return documentCountries[code] }

// DocumentCountryCodes returns SPEC's document country codes, sorted.
func DocumentCountryCodes() []string {
	out := make([]string, 0, len(documentCountries))
	for c := range documentCountries {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// DocumentCountryCount returns how many countries SPEC allows.
func DocumentCountryCount() int { return len(documentCountries) }
