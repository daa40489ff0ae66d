package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Tesseract runs the tesseract program (Debian's tesseract-ocr, version 4.1
// or newer), passing the image on standard input, or in a file to a
// program kept running (Resident), and reading TSV from standard output.
// Processes of their own keep a crash or a runaway recognition from taking
// the service down, and the context's deadline kills them.
type Tesseract struct {
	// Path is the program; "" looks "tesseract" up in PATH.
	Path string
	// Lang is the trained-data language ("" means "eng").
	Lang string
	// Resident is how many programs may be kept running between
	// recognitions, each for one set of Options (see resident); 0 starts
	// one per call. A call that finds every resident busy runs one of its
	// own. Close stops them.
	Resident int

	once sync.Once
	path string
	err  error

	poolOnce  sync.Once
	residents *residents
	poolErr   error
}

// Available reports whether the program can be run, with its version line.
func (t *Tesseract) Available(ctx context.Context) (string, error) {
	path, err := t.lookup()
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w: %s --version: %v", ErrUnavailable, path, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

func (t *Tesseract) lookup() (string, error) {
	t.once.Do(func() {
		name := t.Path
		if name == "" {
			name = "tesseract"
		}
		t.path, t.err = exec.LookPath(name)
		if t.err != nil {
			t.err = fmt.Errorf("%w: %v (install Debian's tesseract-ocr)", ErrUnavailable, t.err)
		}
	})
	return t.path, t.err
}

// Words implements Engine.
func (t *Tesseract) Words(ctx context.Context, img *image.Gray, opt Options) ([]Word, error) {
	pages, err := t.WordsOfPages(ctx, []*image.Gray{img}, opt)
	if err != nil {
		return nil, err
	}
	return pages[0], nil
}

// WordsOfPages implements Pages: the images go to one resident program
// one after the other, or to one run of the program as the pages of one
// TIFF file, which it reads one after the other, each as it would read it
// alone.
func (t *Tesseract) WordsOfPages(ctx context.Context, imgs []*image.Gray, opt Options) ([][]Word, error) {
	path, err := t.lookup()
	if err != nil {
		return nil, err
	}
	args := t.args(opt)
	var pages [][]Word
	if t.Resident > 0 {
		rows, ok, err := t.recognise(ctx, path, args, imgs)
		if err != nil {
			return nil, err
		}
		if ok {
			pages = make([][]Word, len(imgs))
			for i, r := range rows {
				if pages[i], _, err = parseTSV(r); err != nil {
					return nil, err
				}
			}
		}
	}
	if pages == nil {
		var in bytes.Buffer
		if len(imgs) == 1 {
			// Uncompressed: the PNG only crosses a pipe, and compressing it
			// (with the per-row filters Go's encoder chooses for any
			// compression) took a tenth of the CPU of the independently
			// generated photos' decisions (docs/performance.md); the pixels
			// Tesseract reads are the same.
			err = (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&in, imgs[0])
		} else {
			err = writeTIFF(&in, imgs)
		}
		if err != nil {
			return nil, err
		}
		if pages, err = t.run(ctx, path, args, &in, len(imgs)); err != nil {
			return nil, err
		}
	}
	for i, img := range imgs {
		pages[i] = offset(pages[i], img)
	}
	return pages, nil
}

// offset moves words from img's own coordinates, which start at 0, to its
// bounds'.
func offset(words []Word, img *image.Gray) []Word {
	b := img.Bounds()
	for i := range words {
		words[i].Box = words[i].Box.Add(b.Min)
	}
	return words
}

// args are the program's options for a recognition with opt, after its
// input and output.
func (t *Tesseract) args(opt Options) []string {
	lang := t.Lang
	if lang == "" {
		lang = "eng"
	}
	args := []string{"-l", lang, "-c", "tessedit_do_invert=" + DoInvert}
	if opt.PSM > 0 {
		args = append(args, "--psm", strconv.Itoa(opt.PSM))
	}
	if opt.Whitelist != "" {
		args = append(args, "-c", "tessedit_char_whitelist="+opt.Whitelist)
	}
	if opt.DPI > 0 {
		args = append(args, "--dpi", strconv.Itoa(opt.DPI))
	}
	if opt.Threshold > 0 {
		args = append(args, "-c", "thresholding_method="+strconv.Itoa(opt.Threshold))
	}
	return append(args, "tsv")
}

// run recognises the image file in (n pages) in a process of its own and
// returns each page's words.
func (t *Tesseract) run(ctx context.Context, path string, args []string, in *bytes.Buffer, n int) ([][]Word, error) {
	args = append([]string{"stdin", "stdout"}, args...)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = in
	// One thread per process: the service runs several checks at once, and
	// OpenMP's threads would only compete with them.
	cmd.Env = append(cmd.Environ(), "OMP_THREAD_LIMIT=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("ocr: tesseract: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	words, pages, err := parseTSV(out.Bytes())
	if err != nil {
		return nil, err
	}
	byPage := make([][]Word, n)
	for i, w := range words {
		p := pages[i] - 1
		if p < 0 || p >= n {
			return nil, fmt.Errorf("ocr: tesseract: a word on page %d of %d", p+1, n)
		}
		byPage[p] = append(byPage[p], w)
	}
	return byPage, nil
}

// ParseTSV reads Tesseract's TSV output (level, page_num, block_num,
// par_num, line_num, word_num, left, top, width, height, conf, text) and
// returns its words (level 5) that hold text.
func ParseTSV(b []byte) ([]Word, error) {
	words, _, err := parseTSV(b)
	return words, err
}

// parseTSV is ParseTSV that also returns each word's page number (from 1).
func parseTSV(b []byte) ([]Word, []int, error) {
	var words []Word
	var pages []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if strings.HasPrefix(line, "level") {
				continue
			}
		}
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		var n [10]int
		for i := 1; i <= 9; i++ {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, nil, fmt.Errorf("ocr: bad TSV field %q in %q", f[i], line)
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("ocr: bad TSV confidence %q", f[10])
		}
		words = append(words, Word{
			Text: text, Conf: max(conf, 0) / 100,
			Box:   image.Rect(n[6], n[7], n[6]+n[8], n[7]+n[9]),
			Block: n[2], Par: n[3], Line: n[4],
		})
		pages = append(pages, n[1])
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(words) == 0 && len(b) > 0 && !bytes.HasPrefix(b, []byte("level")) {
		return nil, nil, errors.New("ocr: output is not Tesseract TSV")
	}
	return words, pages, nil
}
