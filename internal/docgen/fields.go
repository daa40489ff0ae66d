package docgen

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/verifyd/verifyd/mrz"
)

// Generator makes random, valid MRZ fields, reproducibly from its seed.
type Generator struct {
	rng *rand.Rand
	// Now is "today" for ages and expiry.
	Now time.Time
	// MinorRate and ExpiredRate are the fractions of holders under 18 and
	// of documents past their expiry date (defaults 0.15 each).
	MinorRate, ExpiredRate float64
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64, now time.Time) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, 0x0ddba11)), Now: now, MinorRate: 0.15, ExpiredRate: 0.15}
}

// Uint64 returns a random number from the generator's stream (for seeding
// renderings and photographs consistently with the fields).
func (g *Generator) Uint64() uint64 { return g.rng.Uint64() }

// Spec returns a document specification with random fields of format f and
// a seed for its rendering.
func (g *Generator) Spec(f mrz.Format) Spec {
	return Spec{Format: f, Fields: g.Fields(f), Seed: g.rng.Uint64()}
}

var (
	surnames = []string{"SMITH", "MUELLER", "GARCIA", "ROSSI", "DUBOIS", "JANSEN", "NOWAK", "SILVA", "ERIKSSON",
		"OBRIEN", "KOWALSKI", "VAN DER BERG", "MARTINEZ LOPEZ", "NGUYEN", "OKAFOR", "HAYASHI", "PAPADOPOULOS",
		"FERREIRA", "QUINN", "WOJCIK", "ZIMMERMANN", "BAKER", "LEFEVRE", "JOHANSSON", "KIM", "DE SOUZA",
		"ABERNATHY", "XU", "VASQUEZ", "YILMAZ", "MACKENZIE", "HOFFMANN", "OYELARAN", "BJORK", "COSTA"}
	givenNames = []string{"ANNA", "JOHN", "MARIA", "PETER", "SOFIA", "LUCAS", "EMMA", "NOAH", "OLIVIA", "LIAM",
		"ZOE", "MATEO", "CHLOE", "IVAN", "HANNA", "OSCAR", "MIA", "JAKOB", "ELENA", "THEO", "QUENTIN", "YUKI",
		"XAVIER", "WILHELMINA", "BOGDAN", "FATIMA", "KWAME", "INES", "GRETA", "VIKTOR", "AMELIE", "DMITRI"}
	states = []string{"UTO", "D", "FRA", "GBR", "NLD", "ITA", "ESP", "PRT", "BEL", "AUT", "SWE", "POL", "IRL",
		"FIN", "CZE", "NOR", "USA", "CAN"}
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits  = "0123456789"
)

func (g *Generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *Generator) chars(set string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(set[g.rng.IntN(len(set))])
	}
	return b.String()
}

func (g *Generator) date(t time.Time) mrz.Date {
	y, m, d := t.Date()
	return mrz.Date{Year: y, Month: m, Day: d}
}

// Fields returns random valid fields of format f: names from a list (some
// compound, some long enough to be truncated), 8–9 character document
// numbers, optional data, holders of all ages (MinorRate under 18) and
// documents valid for up to 10 years or already expired (ExpiredRate).
func (g *Generator) Fields(f mrz.Format) mrz.Fields {
	now := g.Now
	if now.IsZero() {
		now = time.Now()
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var age float64
	if g.rng.Float64() < g.MinorRate {
		age = g.rng.Float64() * 17.9
	} else {
		age = 18 + g.rng.Float64()*70
	}
	birth := today.AddDate(0, 0, -int(age*365.25)-1)
	var expiry time.Time
	if g.rng.Float64() < g.ExpiredRate {
		expiry = today.AddDate(0, 0, -1-g.rng.IntN(4*365))
	} else {
		expiry = today.AddDate(0, 0, 1+g.rng.IntN(10*365))
	}
	state := g.pick(states)
	nat := state
	if g.rng.IntN(8) == 0 {
		nat = g.pick(states)
	}
	given := g.pick(givenNames)
	if g.rng.IntN(3) == 0 {
		given += " " + g.pick(givenNames)
	}
	surname := g.pick(surnames)
	if g.rng.IntN(6) == 0 {
		surname += " " + g.pick(surnames)
	}
	sex := "M"
	switch r := g.rng.IntN(100); {
	case r < 47:
		sex = "F"
	case r < 52:
		sex = "X"
	}
	var number string
	switch g.rng.IntN(3) {
	case 0:
		number = g.chars(letters, 2) + g.chars(digits, 7)
	case 1:
		number = g.chars(letters+digits, 9)
	default:
		number = g.chars(letters, 1) + g.chars(digits, 7)
	}
	fl := mrz.Fields{Format: f, Surname: surname, GivenNames: given, Nationality: nat, IssuingState: state,
		BirthDate: g.date(birth), ExpiryDate: g.date(expiry), Sex: sex, DocumentNumber: number}
	switch f {
	case mrz.TD1:
		fl.DocumentCode = []string{"I", "ID", "IR", "AC"}[g.rng.IntN(4)]
		if g.rng.IntN(2) == 0 {
			fl.OptionalData1 = g.chars(digits, 3+g.rng.IntN(12))
		}
		if g.rng.IntN(5) == 0 {
			fl.OptionalData2 = g.chars(letters+digits, 1+g.rng.IntN(11))
		}
	case mrz.TD2:
		fl.DocumentCode = []string{"I", "IR", "AC"}[g.rng.IntN(3)]
		if g.rng.IntN(3) == 0 {
			fl.OptionalData1 = g.chars(digits, 1+g.rng.IntN(7))
		}
	default:
		fl.DocumentCode = "P"
		if g.rng.IntN(5) == 0 {
			fl.DocumentCode = "PD"
		}
		if g.rng.IntN(5) < 3 {
			fl.OptionalData1 = g.chars(digits+letters[:6], 6+g.rng.IntN(9))
		}
	}
	return fl
}
