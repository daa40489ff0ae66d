package cli_test

import (
	"encoding/json"
	"errors"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verifyd/verifyd/internal/docgen"
	"github.com/verifyd/verifyd/internal/facetest"
	"github.com/verifyd/verifyd/internal/testdb"
	"github.com/verifyd/verifyd/internal/testserver"
	"github.com/verifyd/verifyd/mrz"
	"github.com/verifyd/verifyd/ocr/tesswasm"
)

// photo renders a document with docgen, photographs it mildly and writes
// it as a JPEG file.
func photo(t *testing.T, spec docgen.Spec) string {
	t.Helper()
	doc, err := docgen.Render(spec)
	if errors.Is(err, docgen.ErrNoFont) {
		testdb.Skip(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	ph, err := docgen.Photograph(doc, docgen.Mild(), spec.Seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "doc.jpg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := jpeg.Encode(f, ph.Image, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInspect runs the production pipeline on generated document photos
// through the operator command.
func TestInspect(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC()
	adult := mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "GBR", DocumentNumber: "533401372",
		Surname: "SMITH", GivenNames: "ANNA MARIA", Nationality: "GBR", BirthDate: mrz.Date{Year: 1988, Month: 3, Day: 9},
		Sex: "F", ExpiryDate: mrz.Date{Year: now.Year() + 4, Month: 6, Day: 30}}
	minor := adult
	minor.BirthDate = mrz.Date{Year: now.Year() - 16, Month: 1, Day: 2}
	expired := adult
	expired.ExpiryDate = mrz.Date{Year: now.Year() - 1, Month: 1, Day: 2}
	// A valid adult MRZ on a page that prints a minor's birth date.
	forged := adult
	forged.BirthDate = mrz.Date{Year: now.Year() - 15, Month: 7, Day: 14}
	adultLines, err := mrz.Compose(adult)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		fields   mrz.Fields
		lines    []string
		country  string
		decision string
		reason   string
		// why must appear in the output's "why".
		why string
	}{
		{"adult passport: review (faces not compared)", adult, nil, "gbr", "review", "", "face: automatic face matching is not available"},
		{"minor", minor, nil, "gbr", "failed", "minor", "the holder is"},
		{"expired", expired, nil, "gbr", "failed", "expired_id", "expired on"},
		{"wrong country", adult, nil, "fra", "failed", "invalid_id", "not the declared fra"},
		{"printed birth date contradicts the MRZ", forged, adultLines, "gbr", "failed", "potential_fraud", "birth_date printed"},
	}
	testserver.OCR(t) // the visual zone is read
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			front := photo(t, docgen.Spec{Fields: tt.fields, Lines: tt.lines, Seed: uint64(n + 1)})
			stdout, stderr, err := run(t, nil, "inspect", "--type", "Passport", "--country", tt.country, "--front", front)
			if err != nil {
				t.Fatalf("inspect: %v %s", err, stderr)
			}
			var out struct {
				Decision string
				Reason   string
				Why      []string
				MRZ      map[string]any
				Printed  []map[string]any
				Results  []struct {
					Check    string
					Outcome  string
					Evidence map[string]any
				}
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			if out.Decision != tt.decision || out.Reason != tt.reason {
				t.Fatalf("decision %s %s, want %s %s:\n%s", out.Decision, out.Reason, tt.decision, tt.reason, stdout)
			}
			// Both zones and why it decided.
			if !strings.Contains(strings.Join(out.Why, "\n"), tt.why) || out.MRZ["surname"] != "SMITH" {
				t.Fatalf("why %q (want %q), mrz %v", out.Why, tt.why, out.MRZ)
			}
			if tt.reason == "potential_fraud" || tt.decision == "review" {
				if len(out.Printed) != 4 || out.Printed[0]["field"] != "birth_date" {
					t.Fatalf("printed: %v", out.Printed)
				}
			}
			for _, r := range out.Results {
				if r.Check == "document" {
					m, _ := r.Evidence["mrz"].(map[string]any)
					if m["document_number"] != "533401372" || m["surname"] != "SMITH" {
						t.Fatalf("MRZ evidence: %v", r.Evidence)
					}
					return
				}
			}
			t.Fatalf("no document result:\n%s", stdout)
		})
	}
}

// TestInspectFaces runs the face checks through the operator command: a
// passport composed around a face from the sample photos, with a selfie
// of the same person and of another person.
func TestInspectFaces(t *testing.T) {
	t.Parallel()
	people := facetest.People(t)
	models := facetest.ModelsDir(t)
	now := time.Now().UTC()
	fields := mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "GBR", DocumentNumber: "533401372",
		Surname: "SMITH", GivenNames: "ANNA MARIA", Nationality: "GBR", BirthDate: mrz.Date{Year: 1988, Month: 3, Day: 9},
		Sex: "F", ExpiryDate: mrz.Date{Year: now.Year() + 4, Month: 6, Day: 30}}
	// other is far from holder (0.82 against the document): photo_mismatch is
	// final and needs a distance ≥ 0.78 (engine.DefaultFaceThresholds,
	// 69 % of different-people pairs); closer pairs go to review.
	holder, other := people[13], people[3]
	front := photo(t, docgen.Spec{Fields: fields, Face: holder.Portrait(), Seed: 9})
	for _, tt := range []struct {
		name, decision, reason string
		selfie                 facetest.Person
	}{
		{"same person", "approved", "", holder},
		{"another person", "failed", "photo_mismatch", other},
	} {
		t.Run(tt.name, func(t *testing.T) {
			selfie := filepath.Join(t.TempDir(), "selfie.jpg")
			f, err := os.Create(selfie)
			if err != nil {
				t.Fatal(err)
			}
			if err := jpeg.Encode(f, tt.selfie.Selfie(), &jpeg.Options{Quality: 90}); err != nil {
				t.Fatal(err)
			}
			f.Close()
			stdout, stderr, err := run(t, nil, "inspect", "--type", "Passport", "--country", "gbr", "--front", front,
				"--selfie", selfie, "--models-dir", models)
			if err != nil {
				t.Fatalf("inspect: %v %s", err, stderr)
			}
			var out struct {
				Decision, Reason string
				Results          []struct{ Check, Detail string }
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Results {
				t.Logf("%s: %s", r.Check, r.Detail)
			}
			if out.Decision != tt.decision || out.Reason != tt.reason {
				t.Fatalf("decision %s %q, want %s %q:\n%s", out.Decision, out.Reason, tt.decision, tt.reason, stdout)
			}
		})
	}
}

// TestInspectOCREngines: --ocr chooses the engine; the in-process
// WebAssembly Tesseract decides a forged page as the program does.
func TestInspectOCREngines(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testdb.RepoRoot(t), "models")
	if _, err := os.Stat(filepath.Join(dir, "tesseract", tesswasm.DataFile)); err != nil {
		testdb.Skip(t, "Tesseract wasm files absent (scripts/tesseract-wasm-fetch): "+err.Error())
	}
	now := time.Now().UTC()
	adult := mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "GBR", DocumentNumber: "533401372",
		Surname: "SMITH", GivenNames: "ANNA", Nationality: "GBR", BirthDate: mrz.Date{Year: 1988, Month: 3, Day: 9},
		Sex: "F", ExpiryDate: mrz.Date{Year: now.Year() + 4, Month: 6, Day: 30}}
	lines, err := mrz.Compose(adult)
	if err != nil {
		t.Fatal(err)
	}
	forged := adult
	forged.ExpiryDate = mrz.Date{Year: now.Year() - 2, Month: 6, Day: 30}
	front := photo(t, docgen.Spec{Fields: forged, Lines: lines, Seed: 9})
	stdout, stderr, err := run(t, nil, "inspect", "--ocr", "wasm", "--models-dir", dir, "--type", "Passport", "--country", "gbr", "--front", front)
	if err != nil {
		t.Fatalf("inspect: %v %s", err, stderr)
	}
	if !strings.Contains(stderr, "tesseract wasm") || !strings.Contains(stdout, `"reason": "potential_fraud"`) {
		t.Fatalf("stderr %s\nstdout %s", stderr, stdout)
	}
	if _, _, err := run(t, nil, "inspect", "--ocr", "nonsense", "--type", "Passport", "--country", "gbr", "--front", front); err == nil ||
		!strings.Contains(err.Error(), "want auto, tesseract, wasm or off") {
		t.Fatalf("--ocr nonsense: %v", err)
	}
}
