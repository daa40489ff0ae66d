package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/verifyd/verifyd"
)

// DecodeJSON decodes a request body. Syntax errors, an empty body and
// trailing data are SPEC's 400 "malformed syntax"; well-formed JSON with a
// value of the wrong type for a known field is a 422 naming the field.
// Unknown fields are ignored, as SPEC's clients may send more than we read.
//
// JSON is UTF-8 (RFC 8259): other bytes would be replaced silently, so
// they are malformed syntax. A key given twice in one object, in any
// letter case (Go matches field names case-insensitively, and the last
// one would win), is a 422 naming it: the two values may be read
// differently by a proxy, a log and us.
func DecodeJSON(body []byte, v any) error {
	if !utf8.Valid(body) {
		return &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed, Err: errors.New("the body is not UTF-8")}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return ErrMalformed
		}
		if field := duplicateKey(body); field != "" {
			return verifyd.InvalidFields([]verifyd.FieldError{{Field: field, Problem: "is given more than once"}})
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return verifyd.InvalidFields([]verifyd.FieldError{{
			Field: typeErr.Field, Problem: "must be a " + jsonKind(typeErr.Type.Kind().String()),
		}})
	}
	return &verifyd.Error{Code: verifyd.EMalformed, Message: verifyd.MsgMalformed, Err: err}
}

// duplicateKey returns the dotted path of the first key that appears twice
// in one object of a well-formed JSON document (compared case-
// insensitively), or "". The standard library keeps the last value
// silently and offers no option to refuse (encoding/json/v2 will; it is
// not in the default toolchain yet), so this walks the tokens.
func duplicateKey(body []byte) string {
	// container is an open object (keys != nil) or array.
	type container struct {
		path    string
		keys    map[string]bool
		wantKey bool
		key     string
	}
	var stack []*container
	// done marks the innermost object's current value complete.
	done := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *container
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			done()
			continue
		}
		if top != nil && top.keys != nil && top.wantKey {
			k, _ := tok.(string)
			if lk := strings.ToLower(k); top.keys[lk] {
				return strings.TrimPrefix(top.path+"."+k, ".")
			} else {
				top.keys[lk] = true
			}
			top.key, top.wantKey = k, false
			continue
		}
		path := ""
		if top != nil {
			path = top.path
			if top.keys != nil {
				path = strings.TrimPrefix(path+"."+top.key, ".")
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &container{path: path, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &container{path: path})
		default:
			done()
		}
	}
}

func jsonKind(goKind string) string {
	switch {
	case goKind == "string":
		return "string"
	case goKind == "struct", goKind == "map":
		return "JSON object"
	case goKind == "slice", goKind == "array":
		return "JSON array"
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "float"), strings.HasPrefix(goKind, "uint"):
		return "number"
	}
	return goKind
}
