package tesswasm

// The host side of the Emscripten glue (tesseract-core-*.js) the Wasm build
// imports as module "a": a tiny in-memory file system for the trained data,
// the clocks, heap growth, and setjmp/longjmp through invoke_* trampolines.
// The names are minified; each function below names the Emscripten library
// function it stands for, as read from the glue's import object (Xh) of
// tesseract.js-core 7.0.0 (identical for the -lstm and -simd-lstm builds).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental/table"
)

// Emscripten's errno values (those of WASI).
const (
	eBADF   = 8
	eEXIST  = 20
	eINVAL  = 28
	eISDIR  = 31
	eNOENT  = 44
	eNODEV  = 43
	eNOMEM  = 48
	eNOTDIR = 54
	eNOTTY  = 59
	eRANGE  = 68
	eSPIPE  = 70
)

// Open flags of Emscripten's musl.
const (
	oACCMODE   = 3
	oCREAT     = 0o100
	oEXCL      = 0o200
	oTRUNC     = 0o1000
	oAPPEND    = 0o2000
	oDIRECTORY = 0o200000
)

// errLongjmp is raised by _emscripten_throw_longjmp and caught by the
// invoke_* trampolines, as the glue's JavaScript does with `throw Infinity`.
var errLongjmp = errors.New("tesswasm: longjmp")

// wasmAbort is the panic value of the glue's fatal paths (abort, assertion
// failures, uncaught C++ exceptions, exit); the call fails with it.
type wasmAbort struct{ msg string }

func (a *wasmAbort) Error() string { return "tesswasm: " + a.msg }

func abortf(format string, args ...any) {
	panic(&wasmAbort{fmt.Sprintf(format, args...)})
}

// file is a regular file or a directory of the in-memory file system.
type file struct {
	dir  bool
	data []byte
	ino  uint64
}

// stream is an open file descriptor.
type stream struct {
	f     *file
	path  string
	pos   int64
	flags int32
	out   *logBuffer // non-nil for stdout and stderr
}

// logBuffer keeps the tail of what the engine writes to stdout/stderr, for
// error messages.
type logBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const logKeep = 4096

func (l *logBuffer) Write(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*logKeep {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-logKeep:]...)
	}
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf
	if len(b) > logKeep {
		b = b[len(b)-logKeep:]
	}
	return strings.TrimSpace(string(b))
}

// fsys is one instance's file system and descriptor table.
type fsys struct {
	files   map[string]*file
	streams map[int32]*stream
	nextIno uint64
	log     logBuffer
}

func newFS() *fsys {
	fs := &fsys{files: map[string]*file{}, streams: map[int32]*stream{}, nextIno: 1}
	for _, d := range []string{"/", "/tmp", "/dev", "/home", "/home/web_user", "/tessdata"} {
		fs.mkdir(d)
	}
	fs.streams[0] = &stream{f: &file{}, path: "/dev/stdin"}
	fs.streams[1] = &stream{f: &file{}, path: "/dev/stdout", flags: 1, out: &fs.log}
	fs.streams[2] = &stream{f: &file{}, path: "/dev/stderr", flags: 1, out: &fs.log}
	return fs
}

func (fs *fsys) mkdir(p string) *file {
	f := &file{dir: true, ino: fs.nextIno}
	fs.nextIno++
	fs.files[p] = f
	return f
}

func (fs *fsys) create(p string, data []byte) *file {
	f := &file{data: data, ino: fs.nextIno}
	fs.nextIno++
	fs.files[p] = f
	return f
}

// resolve makes p absolute against dirfd (AT_FDCWD is -100; the cwd is "/").
func (fs *fsys) resolve(dirfd int32, p string) (string, int32) {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p), 0
	}
	base := "/"
	if dirfd != -100 {
		s := fs.streams[dirfd]
		if s == nil {
			return "", eBADF
		}
		base = s.path
	}
	return path.Join(base, p), 0
}

func (fs *fsys) open(p string, flags int32) (int32, int32) {
	f := fs.files[p]
	if f == nil {
		if flags&oCREAT == 0 {
			return -1, eNOENT
		}
		if fs.files[path.Dir(p)] == nil {
			return -1, eNOENT
		}
		f = fs.create(p, nil)
	} else if flags&oCREAT != 0 && flags&oEXCL != 0 {
		return -1, eEXIST
	}
	if flags&oDIRECTORY != 0 && !f.dir {
		return -1, eNOTDIR
	}
	if f.dir && flags&oACCMODE != 0 {
		return -1, eISDIR
	}
	if flags&oTRUNC != 0 && flags&oACCMODE != 0 {
		f.data = nil
	}
	fd := int32(3)
	for fs.streams[fd] != nil {
		fd++
	}
	fs.streams[fd] = &stream{f: f, path: p, flags: flags}
	return fd, 0
}

// instState is the per-instance state the host functions reach through the
// call's context.
type instState struct {
	fs  *fsys
	mod api.Module

	// Exports the host functions call back.
	memalign, setThrew, stackRestore, stackSave api.Function
}

type stateKey struct{}

func state(ctx context.Context) *instState {
	s, _ := ctx.Value(stateKey{}).(*instState)
	if s == nil {
		abortf("host function called without instance state")
	}
	return s
}

// mem helpers (wasm32, little endian).

func rd32(m api.Memory, off uint32) uint32 {
	v, ok := m.ReadUint32Le(off)
	if !ok {
		abortf("memory read out of range at %#x", off)
	}
	return v
}

func wr32(m api.Memory, off, v uint32) {
	if !m.WriteUint32Le(off, v) {
		abortf("memory write out of range at %#x", off)
	}
}

func wr64(m api.Memory, off uint32, v uint64) {
	if !m.WriteUint64Le(off, v) {
		abortf("memory write out of range at %#x", off)
	}
}

func read(m api.Memory, off, n uint32) []byte {
	b, ok := m.Read(off, n)
	if !ok {
		abortf("memory read out of range at %#x+%d", off, n)
	}
	return b
}

func cstring(m api.Memory, off uint32) string {
	if off == 0 {
		return ""
	}
	var sb strings.Builder
	for {
		b, ok := m.ReadByte(off)
		if !ok {
			abortf("string out of range at %#x", off)
		}
		if b == 0 {
			return sb.String()
		}
		sb.WriteByte(b)
		off++
	}
}

func neg(errno int32) uint64 { return uint64(uint32(-errno)) }

// writeStat fills Emscripten's struct stat (layout of the glue's Tb).
func writeStat(m api.Memory, buf uint32, f *file) {
	mode, size := uint32(0o100644), uint64(len(f.data))
	if f.dir {
		mode, size = 0o40755, 4096
	}
	b := make([]byte, 96)
	le := binary.LittleEndian
	le.PutUint32(b[0:], 1) // dev
	le.PutUint32(b[4:], mode)
	le.PutUint32(b[8:], 1) // nlink
	le.PutUint64(b[24:], size)
	le.PutUint32(b[32:], 4096)
	le.PutUint32(b[36:], uint32((size+4095)/4096))
	le.PutUint64(b[88:], f.ino)
	if !m.Write(buf, b) {
		abortf("stat buffer out of range")
	}
}

type hostFn func(ctx context.Context, m api.Module, st []uint64)

// hostFuncs maps the minified import names to their implementations.
// Import types come from the module itself.
var hostFuncs = map[string]hostFn{
	// __assert_fail(cond, file, line, func)
	"a": func(ctx context.Context, m api.Module, st []uint64) {
		mem := m.Memory()
		abortf("assertion failed: %s at %s:%d %s", cstring(mem, uint32(st[0])), cstring(mem, uint32(st[1])), int32(st[2]), cstring(mem, uint32(st[3])))
	},
	// invoke_* trampolines: call table[idx](args...) catching longjmp.
	"c": invoke(1, true),  // invoke_ii
	"e": invoke(2, true),  // invoke_iii
	"b": invoke(3, true),  // invoke_iiii
	"h": invoke(4, true),  // invoke_iiiii
	"i": invoke(5, true),  // invoke_iiiiii
	"d": invoke(1, false), // invoke_vi
	"f": invoke(2, false), // invoke_vii
	"g": invoke(3, false), // invoke_viii
	"j": invoke(4, false), // invoke_viiii
	"q": invoke(5, false), // invoke_viiiii
	"r": invoke(9, false), // invoke_viiiiiiiii
	// __cxa_throw(ptr, type, destructor): this build catches no C++
	// exceptions, so one thrown ends the call.
	"k": func(ctx context.Context, m api.Module, st []uint64) {
		abortf("uncaught C++ exception (object %#x, type %#x)", uint32(st[0]), uint32(st[1]))
	},
	// __syscall_fcntl64(fd, cmd, varargs)
	"p": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		s := fs.streams[int32(st[0])]
		if s == nil {
			st[0] = neg(eBADF)
			return
		}
		switch int32(st[1]) {
		case 0: // F_DUPFD
			min := int32(rd32(m.Memory(), uint32(st[2])))
			for fs.streams[min] != nil {
				min++
			}
			c := *s
			fs.streams[min] = &c
			st[0] = uint64(min)
		case 3: // F_GETFL
			st[0] = uint64(uint32(s.flags))
		case 4: // F_SETFL
			s.flags |= int32(rd32(m.Memory(), uint32(st[2])))
			st[0] = 0
		case 1, 2, 13, 14: // F_GETFD, F_SETFD, F_SETLK, F_SETLKW
			st[0] = 0
		case 12: // F_GETLK
			p := rd32(m.Memory(), uint32(st[2]))
			m.Memory().WriteUint16Le(p, 2) // F_UNLCK
			st[0] = 0
		default:
			st[0] = neg(eINVAL)
		}
	},
	// __syscall_fstat64(fd, buf)
	"K": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx).fs.streams[int32(st[0])]
		if s == nil {
			st[0] = neg(eBADF)
			return
		}
		writeStat(m.Memory(), uint32(st[1]), s.f)
		st[0] = 0
	},
	// __syscall_getcwd(buf, size)
	"H": func(ctx context.Context, m api.Module, st []uint64) {
		if uint32(st[1]) == 0 {
			st[0] = neg(eINVAL)
			return
		}
		if uint32(st[1]) < 2 {
			st[0] = neg(eRANGE)
			return
		}
		m.Memory().Write(uint32(st[0]), []byte("/\x00"))
		st[0] = 2
	},
	// __syscall_ioctl(fd, op, varargs): nothing is a terminal.
	"O": func(ctx context.Context, m api.Module, st []uint64) {
		if state(ctx).fs.streams[int32(st[0])] == nil {
			st[0] = neg(eBADF)
			return
		}
		st[0] = neg(eNOTTY)
	},
	// __syscall_newfstatat(dirfd, path, buf, flags)
	"I": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		p, errno := fs.resolve(int32(st[0]), cstring(m.Memory(), uint32(st[1])))
		if errno != 0 {
			st[0] = neg(errno)
			return
		}
		f := fs.files[p]
		if f == nil {
			st[0] = neg(eNOENT)
			return
		}
		writeStat(m.Memory(), uint32(st[2]), f)
		st[0] = 0
	},
	// __syscall_openat(dirfd, path, flags, varargs)
	"n": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		p, errno := fs.resolve(int32(st[0]), cstring(m.Memory(), uint32(st[1])))
		if errno != 0 {
			st[0] = neg(errno)
			return
		}
		fd, errno := fs.open(p, int32(st[2]))
		if errno != 0 {
			st[0] = neg(errno)
			return
		}
		st[0] = uint64(uint32(fd))
	},
	// __syscall_rmdir(path)
	"v": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		p, _ := fs.resolve(-100, cstring(m.Memory(), uint32(st[0])))
		f := fs.files[p]
		switch {
		case f == nil:
			st[0] = neg(eNOENT)
		case !f.dir:
			st[0] = neg(eNOTDIR)
		default:
			delete(fs.files, p)
			st[0] = 0
		}
	},
	// __syscall_unlinkat(dirfd, path, flags)
	"w": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		p, errno := fs.resolve(int32(st[0]), cstring(m.Memory(), uint32(st[1])))
		if errno != 0 {
			st[0] = neg(errno)
			return
		}
		f := fs.files[p]
		switch {
		case f == nil:
			st[0] = neg(eNOENT)
		case f.dir != (uint32(st[2]) == 0x200):
			if f.dir {
				st[0] = neg(eISDIR)
			} else {
				st[0] = neg(eNOTDIR)
			}
		default:
			delete(fs.files, p)
			st[0] = 0
		}
	},
	// _abort_js()
	"N": func(ctx context.Context, m api.Module, st []uint64) {
		abortf("abort() called; engine output: %s", state(ctx).fs.log.String())
	},
	// _emscripten_fs_load_embedded_files(list): {path, size, data} triples
	"Q": func(ctx context.Context, m api.Module, st []uint64) {
		fs, mem := state(ctx).fs, m.Memory()
		for a := uint32(st[0]); ; a += 12 {
			pp := rd32(mem, a)
			if pp == 0 {
				return
			}
			n, d := rd32(mem, a+4), rd32(mem, a+8)
			p := path.Clean("/" + cstring(mem, pp))
			for dir := path.Dir(p); fs.files[dir] == nil; dir = path.Dir(dir) {
				fs.mkdir(dir)
			}
			fs.create(p, append([]byte(nil), read(mem, d, n)...))
		}
	},
	// _emscripten_throw_longjmp()
	"t": func(ctx context.Context, m api.Module, st []uint64) { panic(errLongjmp) },
	// _gmtime_js(time i64, tm*) and _localtime_js: the zone is UTC.
	"A": tmJS,
	"B": tmJS,
	// _mktime_js(tm*) i64
	"C": func(ctx context.Context, m api.Module, st []uint64) {
		mem := m.Memory()
		tm := uint32(st[0])
		f := func(i uint32) int { return int(int32(rd32(mem, tm+4*i))) }
		t := time.Date(f(5)+1900, time.Month(f(4)+1), f(3), f(2), f(1), f(0), 0, time.UTC)
		writeTM(mem, tm, t)
		st[0] = uint64(t.Unix())
	},
	// _mmap_js(len, prot, flags, fd, offset i64, allocated*, addr*)
	"x": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx)
		n, fd, off := uint32(st[0]), int32(st[3]), int64(st[4])
		str := s.fs.streams[fd]
		if str == nil {
			st[0] = neg(eBADF)
			return
		}
		if str.f.dir {
			st[0] = neg(eNODEV)
			return
		}
		size := (uint64(n) + 65535) &^ 65535
		res, err := s.memalign.Call(ctx, 65536, size)
		if err != nil {
			panic(err)
		}
		p := uint32(res[0])
		if p == 0 {
			st[0] = neg(eNOMEM)
			return
		}
		mem := m.Memory()
		buf := read(mem, p, uint32(size))
		clear(buf)
		if off < int64(len(str.f.data)) {
			copy(buf[:n], str.f.data[off:])
		}
		wr32(mem, uint32(st[5]), 1)
		wr32(mem, uint32(st[6]), p)
		st[0] = 0
	},
	// _munmap_js(addr, len, prot, flags, fd, offset i64): shared writable
	// mappings are written back.
	"z": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx)
		addr, n, prot, flags, fd, off := uint32(st[0]), uint32(st[1]), st[2], st[3], int32(st[4]), int64(st[5])
		str := s.fs.streams[fd]
		if str == nil {
			st[0] = neg(eBADF)
			return
		}
		if prot&2 != 0 && flags&2 == 0 && !str.f.dir {
			b := read(m.Memory(), addr, n)
			if end := off + int64(n); end > int64(len(str.f.data)) {
				str.f.data = append(str.f.data, make([]byte, end-int64(len(str.f.data)))...)
			}
			copy(str.f.data[off:], b)
		}
		st[0] = 0
	},
	// _tzset_js(timezone*, daylight*, std_name, dst_name)
	"D": func(ctx context.Context, m api.Module, st []uint64) {
		mem := m.Memory()
		wr32(mem, uint32(st[0]), 0)
		wr32(mem, uint32(st[1]), 0)
		mem.Write(uint32(st[2]), []byte("UTC\x00"))
		mem.Write(uint32(st[3]), []byte("UTC\x00"))
	},
	// clock_time_get(id, precision i64, time*) errno. Recognize reads the
	// monotonic clock once a word (its ETEXT_DESC monitor has a deadline),
	// which is where a done context ends the call: wazero's own
	// WithCloseOnContextDone checks in every loop and makes recognition
	// 4–5 times slower.
	"M": func(ctx context.Context, m api.Module, st []uint64) {
		if err := ctx.Err(); err != nil {
			panic(err)
		}
		id := uint32(st[0])
		if id > 3 {
			st[0] = eINVAL
			return
		}
		var ns int64
		if id == 0 {
			ns = time.Now().UnixNano()
		} else {
			ns = int64(time.Since(epoch))
		}
		wr64(m.Memory(), uint32(st[2]), uint64(ns))
		st[0] = 0
	},
	// emscripten_asm_const_int(code, sig, args): the only EM_ASM blocks
	// report progress to JavaScript.
	"s": func(ctx context.Context, m api.Module, st []uint64) { st[0] = 0 },
	// emscripten_date_now() f64
	"L": func(ctx context.Context, m api.Module, st []uint64) {
		st[0] = math.Float64bits(float64(time.Now().UnixNano()) / 1e6)
	},
	// emscripten_resize_heap(requested) bool
	"u": func(ctx context.Context, m api.Module, st []uint64) {
		mem := m.Memory()
		want := uint64(uint32(st[0]))
		old := uint64(mem.Size())
		if want > 1<<31 {
			st[0] = 0
			return
		}
		// Overgrow like the glue: by up to 20%, at most 96 MiB past the request.
		target := max(want, min(old+old/5, want+96<<20))
		target = min(1<<31, (target+65535)&^65535)
		if target <= old {
			st[0] = 1
			return
		}
		if _, ok := mem.Grow(uint32((target - old) / 65536)); !ok {
			if _, ok := mem.Grow(uint32(((want+65535)&^65535 - old) / 65536)); !ok {
				st[0] = 0
				return
			}
		}
		st[0] = 1
	},
	// environ_get(environ, buf) and environ_sizes_get(count*, size*): empty.
	"F": func(ctx context.Context, m api.Module, st []uint64) { st[0] = 0 },
	"G": func(ctx context.Context, m api.Module, st []uint64) {
		wr32(m.Memory(), uint32(st[0]), 0)
		wr32(m.Memory(), uint32(st[1]), 0)
		st[0] = 0
	},
	// exit(code)
	"R": func(ctx context.Context, m api.Module, st []uint64) {
		abortf("exit(%d) called; engine output: %s", int32(st[0]), state(ctx).fs.log.String())
	},
	// fd_close(fd) errno
	"m": func(ctx context.Context, m api.Module, st []uint64) {
		fs := state(ctx).fs
		fd := int32(st[0])
		if fs.streams[fd] == nil {
			st[0] = eBADF
			return
		}
		if fd > 2 {
			delete(fs.streams, fd)
		}
		st[0] = 0
	},
	// fd_read(fd, iovs, iovcnt, nread*) errno
	"o": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx).fs.streams[int32(st[0])]
		if s == nil || s.flags&oACCMODE == 1 {
			st[0] = eBADF
			return
		}
		if s.f.dir {
			st[0] = eISDIR
			return
		}
		mem := m.Memory()
		total := uint32(0)
		for i := uint32(0); i < uint32(st[2]); i++ {
			iov := uint32(st[1]) + 8*i
			b := read(mem, rd32(mem, iov), rd32(mem, iov+4))
			if s.pos >= int64(len(s.f.data)) {
				break
			}
			k := copy(b, s.f.data[s.pos:])
			s.pos += int64(k)
			total += uint32(k)
			if k < len(b) {
				break
			}
		}
		wr32(mem, uint32(st[3]), total)
		st[0] = 0
	},
	// fd_seek(fd, offset i64, whence, newoffset*) errno
	"E": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx).fs.streams[int32(st[0])]
		if s == nil {
			st[0] = eBADF
			return
		}
		if s.out != nil {
			st[0] = eSPIPE
			return
		}
		off := int64(st[1])
		switch uint32(st[2]) {
		case 0:
		case 1:
			off += s.pos
		case 2:
			off += int64(len(s.f.data))
		default:
			st[0] = eINVAL
			return
		}
		if off < 0 {
			st[0] = eINVAL
			return
		}
		s.pos = off
		wr64(m.Memory(), uint32(st[3]), uint64(off))
		st[0] = 0
	},
	// fd_write(fd, iovs, iovcnt, nwritten*) errno
	"l": func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx).fs.streams[int32(st[0])]
		if s == nil || s.flags&oACCMODE == 0 {
			st[0] = eBADF
			return
		}
		mem := m.Memory()
		total := uint32(0)
		for i := uint32(0); i < uint32(st[2]); i++ {
			iov := uint32(st[1]) + 8*i
			b := read(mem, rd32(mem, iov), rd32(mem, iov+4))
			if s.out != nil {
				s.out.Write(b)
			} else {
				if s.flags&oAPPEND != 0 {
					s.pos = int64(len(s.f.data))
				}
				if end := s.pos + int64(len(b)); end > int64(len(s.f.data)) {
					s.f.data = append(s.f.data, make([]byte, end-int64(len(s.f.data)))...)
				}
				copy(s.f.data[s.pos:], b)
				s.pos += int64(len(b))
			}
			total += uint32(len(b))
		}
		wr32(mem, uint32(st[3]), total)
		st[0] = 0
	},
	// Functions the build left unresolved; JavaScript aborts too.
	"P": missing("TessBaseAPI::GetOsdText"),
	"S": missing("TessBaseAPI::ClearAdaptiveClassifier"),
	"J": missing("TessBaseAPI::DetectOS"),
	"y": missing("OSResults::print_scores"),
}

var epoch = time.Now()

func missing(name string) hostFn {
	return func(ctx context.Context, m api.Module, st []uint64) {
		abortf("missing function %s called", name)
	}
}

func tmJS(ctx context.Context, m api.Module, st []uint64) {
	writeTM(m.Memory(), uint32(st[1]), time.Unix(int64(st[0]), 0).UTC())
}

// writeTM fills struct tm's first nine fields (and tm_gmtoff = 0).
func writeTM(mem api.Memory, p uint32, t time.Time) {
	v := []int{t.Second(), t.Minute(), t.Hour(), t.Day(), int(t.Month()) - 1, t.Year() - 1900, int(t.Weekday()), t.YearDay() - 1, 0, 0}
	for i, x := range v {
		wr32(mem, p+4*uint32(i), uint32(int32(x)))
	}
}

// invoke returns an invoke_* trampoline for nargs arguments, with or without
// an i32 result: it calls the table function with the stack saved and, when
// the callee longjmps, restores the stack and sets __THREW__ as the glue does.
func invoke(nargs int, result bool) hostFn {
	params := make([]api.ValueType, nargs)
	for i := range params {
		params[i] = api.ValueTypeI32
	}
	var results []api.ValueType
	if result {
		results = []api.ValueType{api.ValueTypeI32}
	}
	return func(ctx context.Context, m api.Module, st []uint64) {
		s := state(ctx)
		f := table.LookupFunction(m, 0, uint32(st[0]), params, results)
		sp, err := s.stackSave.Call(ctx)
		if err != nil {
			panic(err)
		}
		args := make([]uint64, max(nargs, len(results)))
		copy(args, st[1:1+nargs])
		if err := f.CallWithStack(ctx, args); err != nil {
			if !errors.Is(err, errLongjmp) {
				panic(err)
			}
			if _, err := s.stackRestore.Call(ctx, sp[0]); err != nil {
				panic(err)
			}
			if _, err := s.setThrew.Call(ctx, 1, 0); err != nil {
				panic(err)
			}
			if result {
				st[0] = 0
			}
			return
		}
		if result {
			st[0] = args[0]
		}
	}
}

// instantiateHost builds host module "a" with the types the guest imports.
func instantiateHost(ctx context.Context, rt wazero.Runtime, guest wazero.CompiledModule) error {
	b := rt.NewHostModuleBuilder("a")
	for _, fn := range guest.ImportedFunctions() {
		mod, name, _ := fn.Import()
		if mod != "a" {
			return fmt.Errorf("tesswasm: unexpected import module %q", mod)
		}
		impl := hostFuncs[name]
		if impl == nil {
			return fmt.Errorf("tesswasm: unknown import a.%s", name)
		}
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(impl), fn.ParamTypes(), fn.ResultTypes()).
			Export(name)
	}
	_, err := b.Instantiate(ctx)
	return err
}
