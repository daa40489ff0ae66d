package faceapi

import (
	"image"
	"math"
	"sync"

	"github.com/verifyd/verifyd/tfjs"
)

// Face is one face found by Analyzer.Faces.
type Face struct {
	Detection  Detection // tiny detector box (image pixels) and score
	Landmarks  []Point   // 68 points, image pixels
	Aligned    Box       // the box the descriptor was computed on
	Descriptor []float32 // 128-d
}

// Analyzer runs face-api's pipeline
//
//	detectAllFaces(img, new TinyFaceDetectorOptions({inputSize, scoreThreshold}))
//	  .withFaceLandmarks()
//	  .withFaceDescriptors()
//
// with the tiny face detector, the 68-point landmark network and the
// recognition network. Safe for concurrent use.
type Analyzer struct {
	detector    *TinyDetector
	landmarks   *LandmarkNet
	recognition *RecognitionNet

	// The SSD detector is loaded on first use: the engine does not use it
	// (docs/accuracy.md), and its weights are 22 MB more per process.
	dir     string
	ssdOnce sync.Once
	ssd     *SSDDetector
	ssdErr  error
}

// LoadAnalyzer loads the networks from a models directory (see Check
// and `verifyd models fetch`): the tiny detector, the landmark network and
// the recognition network; SSD MobileNet v1 is loaded by the first
// DetectSSD.
func LoadAnalyzer(dir string) (*Analyzer, error) {
	det, err := LoadTinyDetector(dir)
	if err != nil {
		return nil, err
	}
	lm, err := LoadLandmarkNet(dir)
	if err != nil {
		return nil, err
	}
	rec, err := LoadRecognitionNet(dir)
	if err != nil {
		return nil, err
	}
	return &Analyzer{detector: det, landmarks: lm, recognition: rec, dir: dir}, nil
}

// Faces finds the faces in img, a [H, W, 3] RGB tensor in 0..255 (see
// ImageTensor), and computes their landmarks and descriptors the way
// face-api does, in detection order (descending score):
//
//  1. the tiny face detector finds boxes (TinyDetector.Detect);
//  2. each box, clipped to the image and its coordinates rounded down
//     (face-api's extractFaceTensors), is cut out and the landmark network
//     runs on that crop; the landmarks are moved to image coordinates by
//     the unrounded box's top-left corner, as face-api does;
//  3. the landmarks give the aligned box (face-api's FaceLandmarks.align
//     with useDlibAlignment, what withFaceDescriptors uses): a square of
//     side floor(mean eye-to-mouth distance / 0.45) around the centre of
//     the eyes and mouth, not rotated;
//  4. that box, clipped and rounded down likewise, is cut out and the
//     recognition network computes the descriptor.
//
// A face whose detection or aligned box lies outside the image is left
// out (face-api would drop the crop and pair the remaining results with
// the wrong detections).
func (a *Analyzer) Faces(img *tfjs.Tensor, opts TinyDetectorOptions) ([]Face, error) {
	dets, err := a.Detect(img, opts)
	if err != nil {
		return nil, err
	}
	return a.Describe(img, dets), nil
}

// Detect runs the first step of Faces alone: the tiny face detector.
// Callers that try several input sizes detect first and describe only
// the detections they keep.
func (a *Analyzer) Detect(img *tfjs.Tensor, opts TinyDetectorOptions) ([]Detection, error) {
	return a.detector.Detect(img, opts)
}

// DetectSSD is Detect with face-api's SSD MobileNet v1 detector instead of
// the tiny one (SSDDetector.Detect); Describe takes its detections too.
// FacesSSD(img, opts) is then face-api's
// detectAllFaces(img, new SsdMobilenetv1Options(opts)).withFaceLandmarks()
// .withFaceDescriptors().
func (a *Analyzer) DetectSSD(img *tfjs.Tensor, opts SSDOptions) ([]Detection, error) {
	a.ssdOnce.Do(func() { a.ssd, a.ssdErr = LoadSSDDetector(a.dir) })
	if a.ssdErr != nil {
		return nil, a.ssdErr
	}
	return a.ssd.Detect(img, opts)
}

// FacesSSD is Faces with the SSD MobileNet v1 detector.
func (a *Analyzer) FacesSSD(img *tfjs.Tensor, opts SSDOptions) ([]Face, error) {
	dets, err := a.DetectSSD(img, opts)
	if err != nil {
		return nil, err
	}
	return a.Describe(img, dets), nil
}

// Describe runs steps 2–4 of Faces (landmarks, alignment, descriptor) on
// detections of img, as returned by Detect.
func (a *Analyzer) Describe(img *tfjs.Tensor, dets []Detection) []Face {
	faces := a.Locate(img, dets)
	for i, f := range faces {
		faces[i].Descriptor = a.recognition.Descriptor(Crop(img, rect(f.Aligned)))
	}
	return faces
}

// Locate runs steps 2–3 of Faces (landmarks and the aligned box) on
// detections of img, leaving Descriptor nil: for callers that compute
// the descriptor from another crop of the face (see Descriptor).
func (a *Analyzer) Locate(img *tfjs.Tensor, dets []Detection) []Face {
	h, w, _ := img.HWC()
	imgW, imgH := float64(w), float64(h)
	faces := make([]Face, 0, len(dets))
	for _, d := range dets {
		// The detection's box is what locateFaces returns (both
		// detectors' Detect reproduce it); extractFaceTensors rebuilds it
		// from its relative box once more (forSize).
		box := d.Box
		crop := clipAtImageBorders(rescaleRoundTrip(box, imgW, imgH), imgW, imgH)
		if crop.Width <= 0 || crop.Height <= 0 {
			continue
		}
		cw, ch := crop.Width, crop.Height
		// FaceLandmarks68 positions in the crop, then shiftBy(box.x,
		// box.y), which goes through the relative positions again.
		pts := a.landmarks.Landmarks(Crop(img, rect(crop)))
		for i, p := range pts {
			pts[i] = Point{float64(p.X/cw*cw) + box.X, float64(p.Y/ch*ch) + box.Y}
		}
		aligned := clipAtImageBorders(alignDlib(pts, cw, ch), imgW, imgH)
		if aligned.Width <= 0 || aligned.Height <= 0 {
			continue
		}
		faces = append(faces, Face{
			Detection: Detection{Box: box, Score: d.Score},
			Landmarks: pts,
			Aligned:   aligned,
		})
	}
	return faces
}

// Descriptor runs the recognition network alone (step 4 of Faces without
// the crop) on a face image, a [H, W, 3] RGB tensor in 0..255: see
// RecognitionNet.Descriptor.
func (a *Analyzer) Descriptor(face *tfjs.Tensor) []float32 {
	return a.recognition.Descriptor(face)
}

// rescaleRoundTrip is face-api's ObjectDetection relativeBox followed by
// a rescale to the same image size: b × (1/width, 1/height) × (width,
// height), which can move the box by a rounding error, reproduced so
// that boxes are rounded down to the same pixels as in face-api.
func rescaleRoundTrip(b Box, w, h float64) Box {
	sx, sy := 1/w, 1/h
	r := Box{b.X * sx, b.Y * sy, b.Width * sx, b.Height * sy}
	return Box{r.X * w, r.Y * h, r.Width * w, r.Height * h}
}

// clipAtImageBorders is face-api's Box.clipAtImageBorders: the box cut at
// the image's top and left, its size cut at the image's right and bottom,
// then every coordinate rounded down.
func clipAtImageBorders(b Box, w, h float64) Box {
	x, y := math.Max(b.X, 0), math.Max(b.Y, 0)
	cw := math.Min(b.Right()-x, w-x)
	ch := math.Min(b.Bottom()-y, h-y)
	return Box{math.Floor(x), math.Floor(y), math.Floor(cw), math.Floor(ch)}
}

// rect converts a box of whole pixels (from clipAtImageBorders) to an
// image.Rectangle.
func rect(b Box) image.Rectangle {
	x, y := int(b.X), int(b.Y)
	return image.Rect(x, y, x+int(b.Width), y+int(b.Height))
}

// face-api's alignment constants (FaceLandmarks.ts): the reference point
// sits at 50 % of the aligned box's width and 43 % of its height, and the
// eye-to-mouth distance is 45 % of its side.
const (
	alignRelX     = 0.5
	alignRelY     = 0.43
	alignRelScale = 0.45
)

// alignDlib is face-api's FaceLandmarks.alignDlib on 68 landmarks in
// image pixels. cropW and cropH are the size of the crop the landmarks
// were found in, which face-api uses (as "imageWidth"/"imageHeight") to
// cap the box size.
func alignDlib(pts []Point, cropW, cropH float64) Box {
	leftEye := centerPoint(pts[36:42])
	rightEye := centerPoint(pts[42:48])
	mouth := centerPoint(pts[48:68])
	distToMouth := func(p Point) float64 {
		dx, dy := mouth.X-p.X, mouth.Y-p.Y
		return math.Sqrt(float64(dx*dx) + float64(dy*dy))
	}
	eyeToMouth := (distToMouth(leftEye) + distToMouth(rightEye)) / 2
	size := math.Floor(eyeToMouth / alignRelScale)
	ref := centerPoint([]Point{leftEye, rightEye, mouth})
	x := math.Floor(math.Max(0, ref.X-float64(alignRelX*size)))
	y := math.Floor(math.Max(0, ref.Y-float64(alignRelY*size)))
	return Box{x, y, math.Min(size, cropW+x), math.Min(size, cropH+y)}
}

// centerPoint is face-api's getCenterPoint: the sum of the points, in
// order, divided by their number.
func centerPoint(pts []Point) Point {
	var s Point
	for _, p := range pts {
		s.X += p.X
		s.Y += p.Y
	}
	n := float64(len(pts))
	return Point{s.X / n, s.Y / n}
}
