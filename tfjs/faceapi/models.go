// Package faceapi runs the face networks of the npm package
// @vladmandic/face-api (a maintained fork of face-api.js) in pure Go, on
// the weights that package ships: the 128-dimensional face descriptor
// network (a port of dlib's ResNet face recognition network), the tiny
// face detector (a Tiny-YOLOv2 variant with depthwise separable
// convolutions), the SSD MobileNet v1 face detector and the 68-point face
// landmark network. Analyzer chains
// them as face-api's detectAllFaces().withFaceLandmarks()
// .withFaceDescriptors() does.
//
// The network definitions here mirror face-api's TypeScript sources
// (src/faceRecognitionNet, src/tinyYolov2, src/tinyFaceDetector,
// src/ssdMobilenetv1,
// src/faceLandmarkNet, src/faceFeatureExtractor) operation for operation,
// including their input preparation (padding to a square, TensorFlow.js
// bilinear resizing, mean subtraction) and the pipeline's box rounding and
// alignment (src/globalApi, src/classes). The parity tests compare the
// outputs with face-api itself running on TensorFlow.js's WASM backend in
// Node.
//
// The weights are not in this repository. `verifyd models fetch`
// downloads the pinned npm tarball, checks its integrity and extracts the
// model files; Check reports whether a directory holds them.
package faceapi

import (
	"errors"
	"sort"

	"github.com/verifyd/verifyd/tfjs"
)

// The pinned npm package the weights come from. Integrity is the
// registry's dist.integrity (Subresource Integrity, sha512) of the tarball:
// `npm view @vladmandic/face-api@1.7.15 dist.integrity`.
const (
	Package          = "@vladmandic/face-api"
	Version          = "1.7.15"
	TarballIntegrity = "sha512-WDMmK3CfNLo8jylWqMoQgf4nIst3M0fzx1dnac96wv/dvMTN4DxC/Pq1DGtduDk1lktCamQ3MIDXFnvrdHTXDw=="
)

// ModelFile is one file of the package's model/ directory.
type ModelFile = tfjs.ModelFile

// ModelFiles lists every file of model/ in the pinned tarball with its
// SHA-256, so a models directory can be checked without the tarball.
var ModelFiles = []ModelFile{
	{Name: "age_gender_model-weights_manifest.json", Size: 8392, SHA256: "74b60bf3ebf981bf4e661e9cca3a185614e10b25d797118b62e2a68d3ff2569f"},
	{Name: "age_gender_model.bin", Size: 429708, SHA256: "49f92bbc0afef2342c4385e4a2b0acb6d7a727c6f0aa539499719a81acf9abaa"},
	{Name: "face_expression_model-weights_manifest.json", Size: 6980, SHA256: "5b349c17c7836da506e03422cd6461c74085d8bb2713ad4114647dc5d28174c8"},
	{Name: "face_expression_model.bin", Size: 329468, SHA256: "9a9840f2cf1f4c7eab95f197512569345c00d2426754d4608b92af30e0300f3d"},
	{Name: "face_landmark_68_model-weights_manifest.json", Size: 8485, SHA256: "ca4886639f86e99b39fed0c155f81b63317225773bd9616716e887b0153389c9"},
	{Name: "face_landmark_68_model.bin", Size: 356840, SHA256: "4611ef65c87d836d03d684b30eec4d195d8b219fa1dd58fc58945831c6b9299b"},
	{Name: "face_landmark_68_tiny_model-weights_manifest.json", Size: 4806, SHA256: "9a1a5dd19fd814fd5095c3cb58f8e0d3193b8c5b9a6715b30a69d559aea31ad4"},
	{Name: "face_landmark_68_tiny_model.bin", Size: 77224, SHA256: "b98e9f2f7da76f8a6dda9741a36ed485b224b889d552de2b2c1bb16217f67bfc"},
	{Name: "face_recognition_model-weights_manifest.json", Size: 19615, SHA256: "cbaffa501b0b9275a12b63357a6843e7e30c054e1c9151e1a5f879b26e32986b"},
	{Name: "face_recognition_model.bin", Size: 6444032, SHA256: "b413e420d6840b2775fba32008db6f3cddb07d485967fb42cfcf379c16a8c589"},
	{Name: "ssd_mobilenetv1_model-weights_manifest.json", Size: 28233, SHA256: "888f744dffbc84f5f060d1f8427d9742341943a2dfaaf9205d10029b7e7a2955"},
	{Name: "ssd_mobilenetv1_model.bin", Size: 5616957, SHA256: "2835640602d53718aa6ae9a42896327eaa21beefed056c218d32ca7d79e1e2f8"},
	{Name: "tiny_face_detector_model-weights_manifest.json", Size: 3219, SHA256: "5d1af4849ac48d5b985f4a9b16010c512353ddd6fcc63d50fd0bc9e9e64296e5"},
	{Name: "tiny_face_detector_model.bin", Size: 193321, SHA256: "b7503ce7df31039b1c43316a9b865cab6a70dd748cc602d3fa28b551503c3871"},
}

// Manifest file names of the networks this package runs.
const (
	RecognitionManifest  = "face_recognition_model-weights_manifest.json"
	TinyDetectorManifest = "tiny_face_detector_model-weights_manifest.json"
)

// DefaultDir is where `verifyd models fetch` puts the files and where the
// service looks for them unless told otherwise (VERIFYD_MODELS_DIR or
// --models-dir): "models" in the working directory.
const DefaultDir = "models"

// ErrMissing is wrapped by Check's error when files are absent.
var ErrMissing = errors.New("face models missing")

// Check verifies that dir holds every model file with the pinned size and
// SHA-256. Its error names the problem files and, when files are missing,
// wraps ErrMissing.
func Check(dir string) error {
	return tfjs.PinnedFiles{
		Package: Package, Version: Version, Files: ModelFiles, ErrMissing: ErrMissing,
		Noun: "model files", Models: "face models",
	}.Check(dir)
}

// ModelFileNamed returns the pinned entry for a file name.
func ModelFileNamed(name string) (ModelFile, bool) {
	i := sort.Search(len(ModelFiles), func(i int) bool { return ModelFiles[i].Name >= name })
	if i < len(ModelFiles) && ModelFiles[i].Name == name {
		return ModelFiles[i], true
	}
	return ModelFile{}, false
}
