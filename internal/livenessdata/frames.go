package livenessdata

import (
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrNoFrames is wrapped by Open's error when scripts/liveness-frames
// has not been run.
var ErrNoFrames = errors.New("livenessdata: the decoded video frames are absent (run scripts/liveness-frames)")

// TimedFrame is one recorded frame: its time since the lead-in began,
// as the hosted page stamps it, and the picture.
type TimedFrame struct {
	At    time.Duration
	Image image.Image
}

// Set gives the decoded frames of the videos.
type Set struct {
	dir string

	mu     sync.Mutex
	frames map[string]image.Image // "video/n"
}

// FramesDir is where scripts/liveness-frames writes, under the
// repository root.
func FramesDir(repoRoot string) string {
	return filepath.Join(repoRoot, ".cache", "liveness-frames")
}

// Open checks that every video's frames were decoded completely under
// dir (FramesDir) and returns the set.
func Open(dir string) (*Set, error) {
	for _, v := range Videos {
		if _, err := os.Stat(filepath.Join(dir, v.Name, ".complete")); err != nil {
			return nil, fmt.Errorf("%w: %s", ErrNoFrames, v.Name)
		}
		// The labels count on the rate and the length.
		last := filepath.Join(dir, v.Name, fmt.Sprintf("%05d.jpg", v.Frames-1))
		if _, err := os.Stat(last); err != nil {
			return nil, fmt.Errorf("livenessdata: %s has fewer than %d frames: was it decoded at %d frames/s? %w", v.Name, v.Frames, FPS, err)
		}
	}
	return &Set{dir: dir, frames: map[string]image.Image{}}, nil
}

// Frame returns frame n of video (the picture at n/FPS seconds).
func (s *Set) Frame(video string, n int) (image.Image, error) {
	v, ok := VideoByName(video)
	if !ok {
		return nil, fmt.Errorf("livenessdata: no video %q", video)
	}
	n = min(max(n, 0), v.Frames-1)
	key := fmt.Sprintf("%s/%d", video, n)
	s.mu.Lock()
	img, ok := s.frames[key]
	s.mu.Unlock()
	if ok {
		return img, nil
	}
	f, err := os.Open(filepath.Join(s.dir, video, fmt.Sprintf("%05d.jpg", n)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err = jpeg.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("livenessdata: %s frame %d: %w", video, n, err)
	}
	s.mu.Lock()
	s.frames[key] = img
	s.mu.Unlock()
	return img, nil
}

// At returns the frame of video nearest to sec seconds.
func (s *Set) At(video string, sec float64) (image.Image, error) {
	return s.Frame(video, int(math.Round(sec*FPS)))
}

// Selfie returns the picture standing for person's selfie (and the face
// a document would carry): a neutral frame outside the segments the
// sequences play, so that a genuine sequence is compared with another
// picture of the person, not with one of its own frames.
func (s *Set) Selfie(person string) (image.Image, error) {
	switch person {
	case "cap":
		return s.At("cap13_edit2", 17.0)
	case "franck":
		return s.At("franck", 100.0)
	}
	return nil, fmt.Errorf("livenessdata: no person %q", person)
}
