package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/verifyd/verifyd/sdk"
)

// The API client commands ("identity …", "redirects …") call a running
// verifyd through the public Go SDK, the way an integrator would.

// cliUserAgent is the User-Agent of the requests the client commands send.
const cliUserAgent = "verifyd-cli"

// apiFlags are the options of every API client command.
type apiFlags struct {
	baseURL   string
	apiKey    string
	apiSecret string
}

func (e *env) addAPIFlags(fs *flag.FlagSet) *apiFlags {
	af := &apiFlags{}
	fs.StringVar(&af.baseURL, "base-url", e.envOr("VERIFYD_BASE_URL", ""),
		"base URL of the mount to call, such as http://127.0.0.1:8080/sandbox/identity (required) (env VERIFYD_BASE_URL)")
	fs.StringVar(&af.apiKey, "api-key", e.envOr("VERIFYD_API_KEY", ""),
		"API key of the mount's interface and environment (required) (env VERIFYD_API_KEY)")
	// The secret's default is not taken from the environment here, so that
	// --help never prints it; client falls back to the variable instead.
	fs.StringVar(&af.apiSecret, "api-secret", "",
		"API secret of the key (required) (env VERIFYD_API_SECRET).\n"+
			"Prefer the environment variable: command-line flags are visible to other users in ps")
	return af
}

// client returns an SDK client for the options, or a usage error naming
// what is missing.
func (e *env) client(fs *flag.FlagSet, af *apiFlags) (*sdk.Client, error) {
	secret := af.apiSecret
	if secret == "" {
		secret = e.getenv("VERIFYD_API_SECRET")
	}
	var missing []string
	if af.baseURL == "" {
		missing = append(missing, "--base-url (VERIFYD_BASE_URL)")
	}
	if af.apiKey == "" {
		missing = append(missing, "--api-key (VERIFYD_API_KEY)")
	}
	if secret == "" {
		missing = append(missing, "--api-secret (VERIFYD_API_SECRET)")
	}
	if len(missing) > 0 {
		fmt.Fprintf(e.stderr, "verifyd %s: %s required\n", fs.Name(), strings.Join(missing, ", "))
		return nil, ErrUsage
	}
	c, err := sdk.New(af.baseURL, af.apiKey, secret, sdk.WithUserAgent(cliUserAgent))
	if err != nil {
		fmt.Fprintf(e.stderr, "verifyd %s: %s\n", fs.Name(), strings.TrimPrefix(err.Error(), "verifyd: "))
		return nil, ErrUsage
	}
	return c, nil
}

// requestError is an error of an SDK call as the command line reports it:
// "HTTP 422: invalid parameters (customer.id: must be a UUID v4)" for an
// *sdk.APIError, and without the SDK's "verifyd: " prefix otherwise, since
// the program adds its own. errors.As still finds the *sdk.APIError.
type requestError struct{ err error }

func (r *requestError) Unwrap() error { return r.err }

func (r *requestError) Error() string {
	var ae *sdk.APIError
	if !errors.As(r.err, &ae) {
		return strings.TrimPrefix(r.err.Error(), "verifyd: ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d: %s", ae.StatusCode, ae.Message)
	for i, f := range ae.Fields {
		if i == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", f.Field, f.Problem)
	}
	if len(ae.Fields) > 0 {
		b.WriteString(")")
	}
	return b.String()
}

func requestFailed(err error) error {
	if err == nil {
		return nil
	}
	return &requestError{err: err}
}

// parseArgs is parse for commands that take positional arguments: flags
// may come before, between or after them, and everything after "--" is
// positional.
func (e *env) parseArgs(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	for {
		if help, err := e.parseFlags(fs, args); help || err != nil {
			return nil, help, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), false, nil
		}
		if len(rest) == 0 {
			return pos, false, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// customerID returns id, or a new random UUID v4 when id is empty.
func (e *env) customerID(id string) (string, error) {
	if id != "" {
		return id, nil
	}
	u, err := uuid.NewRandomFromReader(e.rand)
	if err != nil {
		return "", fmt.Errorf("generate a customer id: %w", err)
	}
	return u.String(), nil
}

const clientOptionsHelp = "Every API command takes --base-url, --api-key and --api-secret, or the environment\n" +
	"variables VERIFYD_BASE_URL, VERIFYD_API_KEY and VERIFYD_API_SECRET. Errors of the service are\n" +
	`reported as "HTTP STATUS: MESSAGE (FIELD: PROBLEM; …)" with exit status 1.`

func (e *env) identityCreate(ctx context.Context, args []string) error {
	fs := e.flags("identity create",
		"identity create [--customer-id UUID] --email EMAIL [--phone P] [--redirect-uri URL] --webhook URL",
		lines("Creates an identity verification that the customer completes on the hosted page (B1),",
			"and prints the service's answer as JSON:",
			`{"id", "customer": {"id", "email"}, "redirect_uri", "webhook"}; redirect_uri is the hosted page.`,
			"--base-url must be an identity mount, such as http://127.0.0.1:8080/sandbox/identity.",
			clientOptionsHelp))
	customerID := fs.String("customer-id", "", "the customer's id, a UUID v4 (default: a new random one, shown in the output)")
	email := fs.String("email", "", "the customer's e-mail address (required)")
	phone := fs.String("phone", "", "the customer's telephone number")
	redirectURI := fs.String("redirect-uri", "", "where the customer is sent after finishing; must be on the allowed-redirect list")
	webhook := fs.String("webhook", "", "URL that receives the status changes (required)")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *email == "" || *webhook == "" {
		fmt.Fprintln(e.stderr, "verifyd identity create: --email and --webhook are required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	id, err := e.customerID(*customerID)
	if err != nil {
		return err
	}
	res, err := c.Identity().Create(ctx, sdk.CreateRequest{
		Customer:    sdk.Customer{ID: id, Email: *email, Phone: *phone},
		RedirectURI: *redirectURI,
		Webhook:     *webhook,
	})
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(res)
}

func (e *env) identitySubmit(ctx context.Context, args []string) error {
	fs := e.flags("identity submit",
		"identity submit [--customer-id UUID] --email EMAIL --selfie FILE --document-type T --document-country C --front FILE [--back FILE] --webhook URL",
		lines("Submits a selfie and photos of an identity document directly (B2), and prints the",
			`service's answer as JSON: {"id", "status", "customer": {"id", "email"}, "webhook"}.`,
			"The images are JPEG, PNG or WebP files; the command base64-encodes them.",
			"--base-url must be an identity mount, such as http://127.0.0.1:8080/sandbox/identity.",
			clientOptionsHelp))
	customerID := fs.String("customer-id", "", "the customer's id, a UUID v4 (default: a new random one, shown in the output)")
	email := fs.String("email", "", "the customer's e-mail address (required)")
	selfie := fs.String("selfie", "", "file with the photo of the customer's face (required)")
	docType := fs.String("document-type", "", "Passport, IdCard, DriverLicense or ResidencePermit (required)")
	country := fs.String("document-country", "", `lowercase 3-letter code of the document's country, such as "gbr" (required)`)
	front := fs.String("front", "", "file with the photo of the document's front (required)")
	back := fs.String("back", "", "file with the photo of the document's back; required for every type but Passport")
	webhook := fs.String("webhook", "", "URL that receives the status changes (required)")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *email == "" || *selfie == "" || *docType == "" || *country == "" || *front == "" || *webhook == "" {
		fmt.Fprintln(e.stderr, "verifyd identity submit: --email, --selfie, --document-type, --document-country, --front and --webhook are required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	req := sdk.SubmitImagesRequest{
		DocumentType:    sdk.DocumentType(*docType),
		DocumentCountry: *country,
		Webhook:         *webhook,
	}
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{*selfie, &req.Selfie}, {*front, &req.DocumentFront}, {*back, &req.DocumentBack}} {
		if f.name == "" {
			continue
		}
		if *f.dst, err = os.ReadFile(f.name); err != nil {
			return err
		}
	}
	id, err := e.customerID(*customerID)
	if err != nil {
		return err
	}
	req.Customer = sdk.Customer{ID: id, Email: *email}
	res, err := c.Identity().SubmitImages(ctx, req)
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(res)
}

func (e *env) identityGet(ctx context.Context, args []string) error {
	fs := e.flags("identity get", "identity get --id ID",
		lines("Reads an identity verification (B3) and prints it as JSON:",
			`{"id", "customer": {"id", "email"}, "redirect_uri", "webhook", "status", "reason"}.`,
			"--base-url must be an identity mount, such as http://127.0.0.1:8080/sandbox/identity.",
			clientOptionsHelp))
	id := fs.String("id", "", "the verification id returned by identity create or submit (required)")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *id == "" {
		fmt.Fprintln(e.stderr, "verifyd identity get: --id is required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	v, err := c.Identity().Get(ctx, *id)
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(v)
}

func (e *env) identityRedact(ctx context.Context, args []string) error {
	fs := e.flags("identity redact", "identity redact --id ID",
		lines("Redacts an identity verification: deletes its images, its checks' evidence and the",
			"customer's e-mail and phone for good (one still under way is ended as expired first),",
			"and prints what is left as B3's JSON body.",
			"--base-url must be an identity mount, such as http://127.0.0.1:8080/sandbox/identity.",
			clientOptionsHelp))
	id := fs.String("id", "", "the verification id (required)")
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *id == "" {
		fmt.Fprintln(e.stderr, "verifyd identity redact: --id is required")
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	v, err := c.Identity().Redact(ctx, *id)
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(v)
}

const redirectsHelp = "The list belongs to the interface and environment of --base-url (an identity or age mount)."

func (e *env) redirectsList(ctx context.Context, args []string) error {
	fs := e.flags("redirects list", "redirects list",
		lines("Prints the allowed-redirect list as the API returns it: {\"body\": [URL, …]}.",
			redirectsHelp, clientOptionsHelp))
	af := e.addAPIFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	urls, err := c.Redirects().List(ctx)
	if err != nil {
		return requestFailed(err)
	}
	return e.printJSON(struct {
		Body []string `json:"body"`
	}{urls})
}

func (e *env) redirectsAdd(ctx context.Context, args []string) error {
	return e.redirectsChange(ctx, args, "add",
		"Adds the URLs to the allowed-redirect list; URLs already on it are not added twice.",
		func(rc *sdk.RedirectsClient) func(context.Context, []string) error { return rc.Add })
}

func (e *env) redirectsReplace(ctx context.Context, args []string) error {
	return e.redirectsChange(ctx, args, "replace",
		`Replaces the whole allowed-redirect list with the URLs. To empty it, use "redirects remove".`,
		func(rc *sdk.RedirectsClient) func(context.Context, []string) error { return rc.Replace })
}

func (e *env) redirectsRemove(ctx context.Context, args []string) error {
	return e.redirectsChange(ctx, args, "remove",
		"Removes the URLs from the allowed-redirect list; URLs not on it are ignored.",
		func(rc *sdk.RedirectsClient) func(context.Context, []string) error { return rc.Remove })
}

// redirectsChange runs one of the commands that change the list with the
// URLs given as arguments. They print nothing on success.
func (e *env) redirectsChange(ctx context.Context, args []string, verb, description string,
	call func(*sdk.RedirectsClient) func(context.Context, []string) error) error {
	fs := e.flags("redirects "+verb, "redirects "+verb+" URL...",
		lines(description, "Prints nothing on success.", redirectsHelp, clientOptionsHelp))
	af := e.addAPIFlags(fs)
	urls, help, err := e.parseArgs(fs, args)
	if help || err != nil {
		return err
	}
	if len(urls) == 0 {
		fmt.Fprintf(e.stderr, "verifyd redirects %s: at least one URL is required\n", verb)
		return ErrUsage
	}
	c, err := e.client(fs, af)
	if err != nil {
		return err
	}
	return requestFailed(call(c.Redirects())(ctx, urls))
}
