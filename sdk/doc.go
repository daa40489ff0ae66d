// Package sdk is the Go client library for verifyd, the self-hostable age and
// identity verification service.
//
// A Client talks to one mount of a verifyd deployment: one interface
// (identity or age) in one environment (production or sandbox). Each mount
// has its own base URL and its own API key and secret, which come from the
// operator of the deployment. The identity interface offers
// Client.Identity, for creating, submitting, reading and redacting identity
// verifications; both interfaces offer Client.Redirects, for managing the
// list of URLs that users may be sent back to.
//
// Every request is signed as the wire contract requires, with the header
// "Authorization: hmac KEY:HEX", where HEX is the hex-encoded HMAC-SHA256,
// keyed with the API secret, of the exact request body, or for GET requests
// of the request path relative to the base URL. A response with a status
// outside 2xx is returned as an *APIError, which errors.As can extract.
//
// Integrators that receive status-change webhooks check them with
// VerifyWebhook, or with VerifyWebhookBody when they read the body
// themselves.
//
// A short example:
//
//	client, err := sdk.New("https://verify.example.com/sandbox/identity", apiKey, apiSecret)
//	if err != nil {
//		return err
//	}
//	v, err := client.Identity().Create(ctx, sdk.CreateRequest{
//		Customer: sdk.Customer{ID: customerID, Email: "jane@example.com"},
//		Webhook:  "https://shop.example.com/hooks/verifyd",
//	})
//	var apiErr *sdk.APIError
//	if errors.As(err, &apiErr) {
//		log.Printf("verifyd refused: %d %s %v", apiErr.StatusCode, apiErr.Message, apiErr.Fields)
//	}
//	if err != nil {
//		return err
//	}
//	http.Redirect(w, r, v.RedirectURI, http.StatusSeeOther)
//
// The package depends only on the standard library and on the signature
// package of verifyd, so that it stays a small and stable public API.
package sdk
