package faceeval

import (
	"bytes"
	"errors"
	"fmt"
	"image"

	"golang.org/x/image/vp8"
)

// Keyframe is one VP8 key frame of a WebM file.
type Keyframe struct {
	// Seconds is the frame's time from the start of the file.
	Seconds float64
	Image   *image.YCbCr
}

// WebMKeyframes decodes the key frames of the first video track of a
// WebM (Matroska) file with VP8 video: a minimal EBML reader (Segment →
// Cluster → Timecode, SimpleBlock/BlockGroup) and golang.org/x/image/vp8,
// which decodes key frames only. That is all the evaluation needs: the
// encoders place a key frame every few seconds, so key frames are frames
// far apart in time. No ffmpeg.
func WebMKeyframes(data []byte) ([]Keyframe, error) {
	const (
		idSegment     = 0x18538067
		idInfo        = 0x1549A966
		idScale       = 0x2AD7B1
		idTracks      = 0x1654AE6B
		idTrackEntry  = 0xAE
		idTrackNumber = 0xD7
		idTrackType   = 0x83
		idCodecID     = 0x86
		idCluster     = 0x1F43B675
		idTimecode    = 0xE7
		idSimpleBlock = 0xA3
		idBlockGroup  = 0xA0
		idBlock       = 0xA1
	)
	scale := 1e6 // TimecodeScale, ns per tick (Matroska's default)
	track := uint64(0)
	var out []Keyframe
	var clusterTime uint64
	dec := vp8.NewDecoder()
	block := func(b []byte, simple bool) error {
		num, n := vint(b, true)
		if n <= 0 || len(b) < n+3 {
			return errors.New("webm: short block")
		}
		if num != track {
			return nil
		}
		rel := int16(uint16(b[n])<<8 | uint16(b[n+1]))
		flags := b[n+2]
		if flags&0x06 != 0 {
			return errors.New("webm: laced video blocks are not supported")
		}
		frame := b[n+3:]
		// A VP8 frame tag's lowest bit is 0 for a key frame.
		if len(frame) < 10 || frame[0]&1 != 0 || (simple && flags&0x80 == 0) {
			return nil
		}
		dec.Init(bytes.NewReader(frame), len(frame))
		if _, err := dec.DecodeFrameHeader(); err != nil {
			return fmt.Errorf("webm: vp8 header: %w", err)
		}
		img, err := dec.DecodeFrame()
		if err != nil {
			return fmt.Errorf("webm: vp8 frame: %w", err)
		}
		// The decoder reuses its buffers: copy.
		cp := image.NewYCbCr(img.Rect, img.SubsampleRatio)
		copy(cp.Y, img.Y)
		copy(cp.Cb, img.Cb)
		copy(cp.Cr, img.Cr)
		t := float64(int64(clusterTime)+int64(rel)) * scale / 1e9
		out = append(out, Keyframe{Seconds: t, Image: cp})
		return nil
	}
	var walk func(b []byte, depth int) error
	walk = func(b []byte, depth int) error {
		for len(b) > 0 {
			id, n := vint(b, false)
			if n <= 0 {
				return errors.New("webm: bad element id")
			}
			size, m := vint(b[n:], true)
			if m <= 0 {
				return errors.New("webm: bad element size")
			}
			b = b[n+m:]
			if size > uint64(len(b)) { // unknown or truncated size: the rest
				size = uint64(len(b))
			}
			body := b[:size]
			b = b[size:]
			switch id {
			case idSegment, idInfo, idTracks, idCluster, idBlockGroup:
				if err := walk(body, depth+1); err != nil {
					return err
				}
			case idTrackEntry:
				var num, typ uint64
				var codec string
				for e := body; len(e) > 0; {
					id, n := vint(e, false)
					size, m := vint(e[n:], true)
					if n <= 0 || m <= 0 || uint64(len(e)-n-m) < size {
						return errors.New("webm: bad track entry")
					}
					v := e[n+m : n+m+int(size)]
					switch id {
					case idTrackNumber:
						num = uintBE(v)
					case idTrackType:
						typ = uintBE(v)
					case idCodecID:
						codec = string(v)
					}
					e = e[n+m+int(size):]
				}
				if typ == 1 && track == 0 {
					if codec != "V_VP8" {
						return fmt.Errorf("webm: video codec %q, not V_VP8", codec)
					}
					track = num
				}
			case idScale:
				scale = float64(uintBE(body))
			case idTimecode:
				clusterTime = uintBE(body)
			case idSimpleBlock, idBlock:
				if err := block(body, id == idSimpleBlock); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(data, 0); err != nil {
		return nil, err
	}
	if track == 0 {
		return nil, errors.New("webm: no video track")
	}
	return out, nil
}

// vint reads an EBML variable-length integer; mask drops the length
// marker (sizes and track numbers) or keeps it (element ids). An all-ones
// size ("unknown") comes back as the largest value.
func vint(b []byte, mask bool) (uint64, int) {
	if len(b) == 0 || b[0] == 0 {
		return 0, -1
	}
	n := 1
	for b[0]&(0x80>>(n-1)) == 0 {
		n++
	}
	if len(b) < n {
		return 0, -1
	}
	v := uint64(b[0])
	if mask {
		v &= uint64(0xFF >> n)
	}
	ones := v == uint64(0xFF>>n)
	for _, c := range b[1:n] {
		v = v<<8 | uint64(c)
		ones = ones && c == 0xFF
	}
	if mask && ones {
		return ^uint64(0), n
	}
	return v, n
}

func uintBE(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}
