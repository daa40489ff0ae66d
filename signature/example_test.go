package signature_test

import (
	"fmt"

	"github.com/verifyd/verifyd/signature"
)

// An integrator signs the exact request body with the API secret and sends
// the API key and the signature in the Authorization header.
func ExampleSign() {
	apiKey := "vdk_test_idv_aaaaaaaaaaaaaaaaaaaaaaaa"
	apiSecret := "vds_test_example-secret"
	body := []byte(`{"customer":{"id":"123e4567-e89b-42d3-a456-556642440000","email":"ada@example.com"}}`)

	sig := signature.Sign(apiSecret, body)
	fmt.Println("Authorization:", signature.Header(apiKey, sig))
	// Output:
	// Authorization: hmac vdk_test_idv_aaaaaaaaaaaaaaaaaaaaaaaa:83d961a8eabd38e212e4f3e4051b1d71e6f569db267a7ca3dda0b1720861adf7
}

// The receiving side, for example a webhook handler, splits the header and
// checks the signature against the secret that belongs to the key.
func ExampleVerify() {
	secrets := map[string]string{"vdk_test_idv_aaaaaaaaaaaaaaaaaaaaaaaa": "vds_test_example-secret"}
	body := []byte(`{"id":"v_1","status":"approved","reason":""}`)
	header := signature.Header("vdk_test_idv_aaaaaaaaaaaaaaaaaaaaaaaa", signature.Sign("vds_test_example-secret", body))

	key, sig, ok := signature.ParseHeader(header)
	fmt.Println(ok && signature.Verify(secrets[key], body, sig))
	fmt.Println(signature.Verify(secrets[key], []byte(`{"id":"v_1","status":"failed"}`), sig))
	// Output:
	// true
	// false
}
