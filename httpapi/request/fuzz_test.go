package request

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeJSON: any body decodes or is refused without a panic; a body
// accepted never holds a key twice, and is valid JSON.
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"customer":{"id":"x","email":"a@example.com"},"webhook":"https://h.example/"}`))
	f.Add([]byte(`{"a":1,"A":2}`))
	f.Add([]byte(`[{"a":[{"b":{}}]}]`))
	f.Add([]byte("{\"a\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var v map[string]any
		if err := DecodeJSON(body, &v); err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if k := duplicateKey(body); k != "" {
			t.Fatalf("accepted %q with %q twice", body, k)
		}
	})
}
