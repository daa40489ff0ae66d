package faceapi

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/verifyd/verifyd/tfjs"
)

// ImageTensor converts an image to a [height, width, 3] tensor of RGB
// values in 0..255 (alpha is dropped, as face-api does with RGBA input).
func ImageTensor(img image.Image) *tfjs.Tensor {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	t := tfjs.New(h, w, 3)
	if rgba, ok := img.(*image.RGBA); ok {
		for y := 0; y < h; y++ {
			row := rgba.Pix[y*rgba.Stride : y*rgba.Stride+4*w]
			dst := t.Data[y*w*3 : (y+1)*w*3]
			for x := 0; x < w; x++ {
				dst[3*x], dst[3*x+1], dst[3*x+2] = float32(row[4*x]), float32(row[4*x+1]), float32(row[4*x+2])
			}
		}
		return t
	}
	if ycc, ok := img.(*image.YCbCr); ok {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := ycc.YCbCrAt(b.Min.X+x, b.Min.Y+y)
				r, g, bb := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
				i := (y*w + x) * 3
				t.Data[i], t.Data[i+1], t.Data[i+2] = float32(r), float32(g), float32(bb)
			}
		}
		return t
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	return ImageTensor(rgba)
}

// RGBBytes returns the tensor's values as bytes (it must hold integers in
// 0..255), e.g. to hand the exact same pixels to the reference
// implementation.
func RGBBytes(t *tfjs.Tensor) []byte {
	out := make([]byte, len(t.Data))
	for i, v := range t.Data {
		out[i] = byte(max(0, min(255, v)))
	}
	return out
}

// Crop returns the part of a [H, W, C] tensor inside r, clipped to it.
func Crop(t *tfjs.Tensor, r image.Rectangle) *tfjs.Tensor {
	h, w, c := t.HWC()
	r = r.Intersect(image.Rect(0, 0, w, h))
	out := tfjs.New(r.Dy(), r.Dx(), c)
	for y := 0; y < r.Dy(); y++ {
		copy(out.Data[y*r.Dx()*c:(y+1)*r.Dx()*c], t.Data[((r.Min.Y+y)*w+r.Min.X)*c:])
	}
	return out
}

// squarePad is the padding face-api's padToSquare adds to the shorter
// side: all of it at the end (bottom or right), or, when centered,
// round(diff/2) at the end and the rest at the start.
func squarePad(h, w int, center bool) tfjs.Pad {
	diff := h - w
	if diff < 0 {
		diff = -diff
	}
	end := diff
	if center {
		end = int(math.Floor(float64(diff)*0.5 + 0.5)) // Math.round
	}
	start := diff - end
	if h > w {
		return tfjs.Pad{Left: start, Right: end}
	}
	return tfjs.Pad{Top: start, Bottom: end}
}

// batchInput is face-api's NetInput.toBatchTensor for a tensor input: pad
// to a square, then resize bilinearly to size×size unless it already is
// that size. It returns a new tensor.
func batchInput(t *tfjs.Tensor, size int, center bool) *tfjs.Tensor {
	h, w, _ := t.HWC()
	p := squarePad(h, w, center)
	if max(h, w) == size {
		return tfjs.PadHWC(t, p, 0)
	}
	return tfjs.ResizePaddedBilinear(t, p, size, size)
}

// normalize subtracts the per-channel mean and divides by 255, in place.
func normalize(t *tfjs.Tensor, mean [3]float32) {
	for i := 0; i < len(t.Data); i += 3 {
		t.Data[i] = (t.Data[i] - mean[0]) / 255
		t.Data[i+1] = (t.Data[i+1] - mean[1]) / 255
		t.Data[i+2] = (t.Data[i+2] - mean[2]) / 255
	}
}
