package request

import (
	"errors"
	"testing"

	"github.com/verifyd/verifyd"
)

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"customer":{"email":"x","Email":"y"}}`, "customer.Email"},
		{`{"a":[{"b":1},{"b":2}]}`, ""},
		{`{"a":{"b":1},"b":2}`, ""},
		{`{"a":[1,[2,{"c":3}]],"A":3}`, "A"},
		{`{"x":[{"k":1,"k":2}]}`, "x.k"},
		{`{"x":{},"y":[],"z":{"x":{}},"w":null}`, ""},
		{`[{"a":1},{"a":1}]`, ""},
	} {
		if got := duplicateKey([]byte(c.body)); got != c.want {
			t.Errorf("%s: %q, want %q", c.body, got, c.want)
		}
	}
}

func TestDecodeJSONRefusesWhatWouldBeReadSilently(t *testing.T) {
	var v struct {
		Email string `json:"email"`
	}
	err := DecodeJSON([]byte("{\"email\":\"a\xffb@example.com\"}"), &v)
	var e *verifyd.Error
	if !errors.As(err, &e) || e.Code != verifyd.EMalformed {
		t.Errorf("invalid UTF-8: %v, want malformed syntax", err)
	}
	err = DecodeJSON([]byte(`{"email":"a@example.com","EMAIL":"b@example.com"}`), &v)
	if !errors.As(err, &e) || e.Code != verifyd.EInvalid {
		t.Errorf("a key given twice: %v, want invalid parameters", err)
	}
	if err := DecodeJSON([]byte(`{"email":"a@example.com"}`), &v); err != nil || v.Email != "a@example.com" {
		t.Errorf("a plain body: %v %q", err, v.Email)
	}
}
