package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verifyd/verifyd/signature"
)

// DefaultTimeout is the timeout of the HTTP client that New uses when no
// client is given with WithHTTPClient.
const DefaultTimeout = 30 * time.Second

// DefaultUserAgent is the User-Agent header sent unless WithUserAgent
// changes it.
const DefaultUserAgent = "verifyd-go-sdk"

// Limits on the response bodies the client reads. Success bodies are small
// JSON documents; error bodies only need to be long enough for an excerpt.
const (
	maxResponseBytes = 4 << 20
	maxErrorBytes    = 64 << 10
)

// Client calls one mount of a verifyd deployment: one interface in one
// environment, with one API key. A Client is safe for concurrent use.
type Client struct {
	base      *url.URL
	apiKey    string
	apiSecret string
	http      *http.Client
	userAgent string
}

// Option changes a setting of a Client made by New.
type Option func(*Client)

// WithHTTPClient makes the client send its requests with hc instead of a
// new http.Client with DefaultTimeout. A nil hc keeps the default.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent header of every request. An empty
// string keeps DefaultUserAgent.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// New returns a client for the mount at baseURL, such as
// "https://verify.example.com/sandbox/identity", which may carry a path
// prefix. The base URL must be an absolute http or https URL without
// credentials, query or fragment. apiKey and apiSecret are the credentials
// of that mount's interface and environment; both are required.
func New(baseURL, apiKey, apiSecret string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(baseURL, "#") {
		return nil, fmt.Errorf("verifyd: base URL must be an absolute http or https URL without credentials, query or fragment, got %q", baseURL)
	}
	if apiKey == "" || apiSecret == "" {
		return nil, errors.New("verifyd: API key and API secret are required")
	}
	if strings.ContainsAny(apiKey, ": \t\r\n") {
		return nil, errors.New("verifyd: API key must not contain a colon or white space")
	}
	c := &Client{
		base:      u,
		apiKey:    apiKey,
		apiSecret: apiSecret,
		http:      &http.Client{Timeout: DefaultTimeout},
		userAgent: DefaultUserAgent,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// BaseURL returns the base URL the client was made with.
func (c *Client) BaseURL() string { return c.base.String() }

// APIKey returns the API key the client signs with.
func (c *Client) APIKey() string { return c.apiKey }

// Identity returns the identity verification calls (SPEC section B). They
// only succeed on a client for an identity interface base URL.
func (c *Client) Identity() *IdentityClient { return &IdentityClient{c: c} }

// Redirects returns the allowed-redirect list calls (SPEC section C), which
// exist on both interfaces.
func (c *Client) Redirects() *RedirectsClient { return &RedirectsClient{c: c} }

// urlFor returns the absolute URL of a path relative to the base URL. rel
// is unescaped and relEscaped is the same path in escaped form.
func (c *Client) urlFor(rel, relEscaped string) string {
	u := *c.base
	u.Path = strings.TrimSuffix(c.base.Path, "/") + rel
	u.RawPath = strings.TrimSuffix(c.base.EscapedPath(), "/") + relEscaped
	return u.String()
}

// do sends one signed request. rel is the path relative to the base URL,
// unescaped, and relEscaped its escaped form. When in is not nil it is sent
// as the JSON body; when out is not nil a 2xx response body is decoded
// into it.
func (c *Client) do(ctx context.Context, method, rel, relEscaped string, in, out any) error {
	if ctx == nil {
		return errors.New("verifyd: nil context")
	}
	var body []byte
	signed := []byte(rel)
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("verifyd: encode %s %s: %w", method, rel, err)
		}
		signed = body
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.urlFor(rel, relEscaped), reader)
	if err != nil {
		return fmt.Errorf("verifyd: %s %s: %w", method, rel, err)
	}
	req.Header.Set("Authorization", signature.Header(c.apiKey, signature.Sign(c.apiSecret, signed)))
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.userAgent)

	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("verifyd: %s %s: %w", method, rel, err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return newAPIError(resp.StatusCode, b)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("verifyd: %s %s: read response: %w", method, rel, err)
	}
	if len(b) > maxResponseBytes {
		return fmt.Errorf("verifyd: %s %s: response larger than %d bytes", method, rel, maxResponseBytes)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("verifyd: %s %s: decode response (status %d): %w", method, rel, resp.StatusCode, err)
	}
	return nil
}
