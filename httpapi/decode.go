package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/verifyd/verifyd"
)

// decodeJSON decodes a request body. Syntax errors, an empty body and
// trailing data are SPEC's 400 "malformed syntax"; well-formed JSON with a
// value of the wrong type for a known field is a 422 naming the field.
// Unknown fields are ignored, as SPEC's clients may send more than we read.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return errMalformed
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
