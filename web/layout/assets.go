package layout

import (
	"crypto/sha256"
	_ "embed" // the stylesheet
	"encoding/hex"
	"net/http"
	"path"
	"strings"
)

//go:embed hosted.css
var stylesheet []byte

// Stylesheet is the person-facing pages' stylesheet: the frame's, the
// capture form's and the age pages'. (It keeps the name of the page it was
// first written for; its URL is hosted.HASH.css.)
var Stylesheet = Asset{Name: "hosted.css", Body: stylesheet}

//go:embed passkey.js
var passkeyScript []byte

// PasskeyScript runs WebAuthn ceremonies for the buttons of a page that
// carry data-passkey (the age pages' and the dashboard's): begin, the
// browser's dialog, finish, then data-next. The file says how.
var PasskeyScript = Asset{Name: "passkey.js", Body: passkeyScript}

// Asset is one static file of a page set.
type Asset struct {
	Name string
	Body []byte
}

// Assets are a page set's static files, each served under a name that
// contains its content hash (hosted.css as hosted.0123456789.css) so it
// can be cached for a year and a new build is picked up at once.
type Assets struct {
	byHashed map[string]servedAsset
	hashed   map[string]string // plain name → hashed name
}

type servedAsset struct {
	body        []byte
	contentType string
	etag        string
}

// NewAssets hashes files (.css and .js).
func NewAssets(files ...Asset) *Assets {
	a := &Assets{byHashed: map[string]servedAsset{}, hashed: map[string]string{}}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	for _, f := range files {
		sum := sha256.Sum256(f.Body)
		hash := hex.EncodeToString(sum[:5])
		ext := path.Ext(f.Name)
		hashed := strings.TrimSuffix(f.Name, ext) + "." + hash + ext
		a.byHashed[hashed] = servedAsset{body: f.Body, contentType: types[ext], etag: `"` + hash + `"`}
		a.hashed[f.Name] = hashed
	}
	return a
}

// Name is the hashed name of the file called plain.
func (a *Assets) Name(plain string) string { return a.hashed[plain] }

// Serve answers the file of that hashed name with year-long caching
// headers (304 to a matching If-None-Match); false when there is none,
// for the page set to answer its own 404.
func (a *Assets) Serve(w http.ResponseWriter, r *http.Request, hashed string) bool {
	f, ok := a.byHashed[hashed]
	if !ok {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", f.etag)
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	_, _ = w.Write(f.body)
	return true
}
