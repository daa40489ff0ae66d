package hosted

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"

	qrcode "github.com/yeqown/go-qrcode/v2"

	"github.com/verifyd/verifyd/httpapi/request"
)

// The desktop → phone hand-off (docs/hosted-flow.md): the capture page
// shows its own link as a QR code and as text, so a person at a computer
// continues the same verification on their phone, while the computer's
// page follows the phone's progress through /status.

// qrModule is the size of one QR module in pixels, and qrQuiet the quiet
// zone around the code in modules (the standard asks for 4).
const (
	qrModule = 6
	qrQuiet  = 4
)

// pageURL is the absolute address of the hosted page on the mount's public
// base URL (with an explicitly chosen language).
func (h hostedReq) pageURL() string {
	u := *h.mount.BaseURL
	u.Path, u.RawPath, u.RawQuery, u.Fragment = h.pagePath(""), "", "", ""
	if h.explicit {
		u.RawQuery = "lang=" + h.lang
	}
	return u.String()
}

// bitmapWriter keeps the matrix go-qrcode hands its writers.
type bitmapWriter struct{ bits [][]bool }

func (w *bitmapWriter) Write(m qrcode.Matrix) error { w.bits = m.Bitmap(); return nil }
func (w *bitmapWriter) Close() error                { return nil }

// qrPNG encodes text as a QR code (error correction level M) in a
// black-on-white PNG.
func qrPNG(text string) ([]byte, error) {
	q, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, err
	}
	var bw bitmapWriter
	if err := q.Save(&bw); err != nil {
		return nil, err
	}
	n := len(bw.bits)
	side := (n + 2*qrQuiet) * qrModule
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y, row := range bw.bits {
		for x, on := range row {
			if !on {
				continue
			}
			for dy := range qrModule {
				for dx := range qrModule {
					img.SetGray((x+qrQuiet)*qrModule+dx, (y+qrQuiet)*qrModule+dy, color.Gray{})
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// QR serves the QR code of the page's link while the page takes
// photos; a finished or unknown verification has none (404).
func (hp *Pages) QR(w http.ResponseWriter, r *http.Request) {
	h, st, ok := hp.stateOrError(w, r)
	if !ok {
		return
	}
	if !st.CanSubmit() {
		hp.writeError(w, r, request.ErrRouteNotFound)
		return
	}
	body, err := qrPNG(h.pageURL())
	if err != nil {
		hp.writeError(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "image/png")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'none'")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Referrer-Policy", "same-origin")
	_, _ = w.Write(body)
}
