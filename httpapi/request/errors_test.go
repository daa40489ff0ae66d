package request_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/httpapi/request"
)

// TestWriteError: every error code answers its status with SPEC's body;
// only a *verifyd.Error's safe message reaches the client, anything else
// is a logged 500 with the request's id.
func TestWriteError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		err     error
		status  int
		message string
		logged  string
	}{
		{"malformed", request.ErrMalformed, 400, verifyd.MsgMalformed, ""},
		{"invalid", verifyd.InvalidFields([]verifyd.FieldError{{Field: "x", Problem: "is required"}}), 422, verifyd.MsgInvalidParameters, ""},
		{"not found", request.ErrRouteNotFound, 404, verifyd.MsgNotFound, ""},
		{"method", request.ErrMethodNotAllowed, 405, verifyd.MsgMethodNotAllowed, ""},
		{"too large", request.ErrTooLarge, 413, verifyd.MsgTooLarge, ""},
		{"refused with a cause", &verifyd.Error{Code: verifyd.EConflict, Message: "busy", Err: errors.New("row locked")}, 409, "busy", "request refused"},
		{"internal", errors.New("database password is hunter2"), 500, verifyd.MsgInternal, "request failed"},
	} {
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		r := httptest.NewRequest("GET", "/x", nil)
		r = r.WithContext(request.WithInfo(r.Context(), &request.Info{ID: "req-1"}))
		w := httptest.NewRecorder()
		request.WriteError(w, r, log, c.err)
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w.Code != c.status || body["status_code"] != float64(c.status) || body["message"] != c.message ||
			w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s", c.name, w.Code, w.Body.String())
		}
		if strings.Contains(w.Body.String(), "hunter2") {
			t.Errorf("%s: internal detail answered: %s", c.name, w.Body.String())
		}
		if c.logged != "" && (!strings.Contains(logs.String(), c.logged) || !strings.Contains(logs.String(), "request_id=req-1")) {
			t.Errorf("%s: log %q, want %q with the request id", c.name, logs.String(), c.logged)
		}
		if c.logged == "" && logs.Len() != 0 {
			t.Errorf("%s: logged %q", c.name, logs.String())
		}
	}
}

// TestReadBody: a body up to the limit is read exactly; past it, 413.
func TestReadBody(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body    string
		limit   int64
		wantErr error
	}{
		{"0123456789", 10, nil},
		{"0123456789", 9, request.ErrTooLarge},
		{"", 10, nil},
	} {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(c.body))
		r.ContentLength = -1 // streamed: the limit is found while reading
		b, err := request.ReadBody(httptest.NewRecorder(), r, c.limit)
		if !errors.Is(err, c.wantErr) || (err == nil && string(b) != c.body) {
			t.Errorf("ReadBody(%q, %d) = %q, %v", c.body, c.limit, b, err)
		}
	}
}
