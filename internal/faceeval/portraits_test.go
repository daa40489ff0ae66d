package faceeval_test

import (
	"cmp"
	"context"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/engine"
	"github.com/verifyd/verifyd/internal/faceeval"
	"github.com/verifyd/verifyd/internal/facetest"
)

var portraitsDir = flag.String("faces.portraits", "", "TestWritePortraits: write the people's photographs to this directory as scripts/indepdocs/gen.py --portraits reads them (PERSON-0.png printed on the document, PERSON-K.png the selfies)")

// TestWritePortraits writes the real photographs of the face evaluations
// for the independent document generator (scripts/indepdocs/gen.py
// --portraits DIR), so that its documents carry real people's portraits
// and its submissions real selfies: PERSON-0.png is the holder's
// portrait, cut around the face found on one photograph the way
// TestEndToEndDecisions prints it, and PERSON-1.png… are the person's
// other photographs (one per sitting), which become selfies. Only people
// with two sittings or more are written. Without -faces.portraits it
// checks that the sources give at least two such people (other_person
// needs them) and writes nothing:
//
//	go test -count=1 -run TestWritePortraits ./internal/faceeval -args -faces.portraits /tmp/portraits
func TestWritePortraits(t *testing.T) {
	m := facetest.Models(t)
	ctx := context.Background()
	persons, byPerson := sittings(namedPhotos(t))
	written := 0
	for _, person := range persons {
		ps := byPerson[person]
		i := slices.IndexFunc(ps, portraitSource)
		if len(ps) < 2 || i < 0 {
			continue
		}
		doc := faceeval.Frame(ps[i].Image, 2, 400)
		faces, err := m.Faces(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		faces = engine.DefaultFaceThresholds.Usable(faces)
		if len(faces) == 0 {
			continue
		}
		b := doc.Bounds()
		centre := func(f engine.Face) float64 {
			return math.Hypot(float64(f.Box.Min.X+f.Box.Max.X-b.Min.X-b.Max.X), float64(f.Box.Min.Y+f.Box.Max.Y-b.Min.Y-b.Max.Y))
		}
		face := slices.MinFunc(faces, func(a, b engine.Face) int { return cmp.Compare(centre(a), centre(b)) })
		imgs := []image.Image{facetest.Person{Name: person, Box: face.Box, Photo: doc}.Portrait()}
		for k, ph := range ps {
			if k != i {
				imgs = append(imgs, faceeval.Frame(ph.Image, 2, 400))
			}
		}
		written++
		if *portraitsDir == "" {
			continue
		}
		if err := os.MkdirAll(*portraitsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, img := range imgs {
			writePNG(t, filepath.Join(*portraitsDir, fileName(person)+"-"+strconv.Itoa(k)+".png"), img)
		}
	}
	if written < 2 {
		t.Fatalf("%d people with a portrait and another sitting; other_person needs two", written)
	}
	t.Logf("%d people", written)
}

// fileName is a person's name as gen.py's PERSON-K.png pattern takes it.
func fileName(person string) string {
	return nonWord.ReplaceAllString(strings.ToLower(person), "_")
}

var nonWord = regexp.MustCompile(`[^a-z0-9_]+`)

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
