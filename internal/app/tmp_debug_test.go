package app_test

import (
	"context"
	"image"
	"os"
	"strconv"
	"testing"

	"github.com/verifyd/verifyd/mrzocr"
	"github.com/verifyd/verifyd/mrzread"
	"github.com/verifyd/verifyd/ocr"
)

type logEng struct {
	t   *testing.T
	eng ocr.Engine
}

func (l logEng) Words(ctx context.Context, g *image.Gray, opt ocr.Options) ([]ocr.Word, error) {
	ws, err := l.eng.Words(ctx, g, opt)
	line := ""
	key := [3]int{-1}
	for _, w := range ws {
		k := [3]int{w.Block, w.Par, w.Line}
		if k != key && line != "" {
			l.t.Logf("   %dx%d %s", g.Rect.Dx(), g.Rect.Dy(), line)
			line = ""
		}
		key = k
		line += w.Text + "@" + strconv.Itoa(w.Box.Min.X) + "-" + strconv.Itoa(w.Box.Max.X) + "(" + strconv.Itoa(int(w.Conf*100)) + ") "
	}
	l.t.Logf("   %dx%d %s", g.Rect.Dx(), g.Rect.Dy(), line)
	return ws, err
}

func TestTmpDebug(t *testing.T) {
	name := os.Getenv("DBG_SET")
	if name == "" {
		t.Skip()
	}
	var v mrzVariant
	for _, x := range mrzVariants {
		if x.name == name {
			v = x
		}
	}
	i, _ := strconv.Atoi(os.Getenv("DBG_I"))
	ph, doc, _ := mrzPhoto(t, v, i)
	t.Logf("truth %q", doc.Lines)
	r, err := mrzread.Read(ph.Image, 0)
	t.Logf("mrzread %q %v", r.Lines, err)
	z := mrzocr.Zone{}
	if err == nil {
		z = mrzocr.Zone{Found: true, Quad: r.Quad, Format: r.Format}
	}
	res, err := mrzocr.Reader{OCR: logEng{t, &ocr.Tesseract{}}}.Read(context.Background(), ph.Image, 0, z)
	t.Logf("=> %q %v %+v", res.Lines, err, res)
}
