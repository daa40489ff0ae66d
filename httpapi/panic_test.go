package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/verifyd/verifyd/httpapi/request"
)

// TestPanicBecomes500: a panicking handler answers SPEC's 500 body, logs the
// panic, and never sends its text to the client.
func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := New(Config{}, Deps{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	rec := httptest.NewRecorder()
	s.observe(rec, httptest.NewRequest("GET", "/", nil), func(http.ResponseWriter, *http.Request) {
		panic("secret internal detail")
	})
	var body request.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 500 || body.Message != "Internal Server Error" || body.StatusCode != 500 {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "secret") {
		t.Fatal("panic text leaked to the client")
	}
	if !strings.Contains(logs.String(), "secret internal detail") {
		t.Fatalf("panic not logged: %s", logs.String())
	}
}
