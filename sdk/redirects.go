package sdk

import "context"

// redirectsPath is the path of the allowed-redirect list, the same on both
// interfaces.
const redirectsPath = "/v1/business/allowed-redirects"

// RedirectsClient manages the allowed-redirect list of the client's
// interface and environment: the URLs to which users may be sent after a
// verification. Get one with Client.Redirects; it is safe for concurrent
// use.
type RedirectsClient struct {
	c *Client
}

// List returns the URLs on the list.
func (rc *RedirectsClient) List(ctx context.Context) ([]string, error) {
	var out struct {
		Body []string `json:"body"`
	}
	if err := rc.c.do(ctx, "GET", redirectsPath, redirectsPath, nil, &out); err != nil {
		return nil, err
	}
	if out.Body == nil {
		out.Body = []string{}
	}
	return out.Body, nil
}

// Add adds urls to the list. URLs already on it are not added twice.
func (rc *RedirectsClient) Add(ctx context.Context, urls []string) error {
	return rc.c.do(ctx, "PATCH", redirectsPath, redirectsPath, nonNil(urls), nil)
}

// Replace replaces the whole list with urls. An empty or nil urls clears
// the list.
func (rc *RedirectsClient) Replace(ctx context.Context, urls []string) error {
	return rc.c.do(ctx, "PUT", redirectsPath, redirectsPath, nonNil(urls), nil)
}

// Remove removes urls from the list. URLs that are not on it are ignored.
func (rc *RedirectsClient) Remove(ctx context.Context, urls []string) error {
	return rc.c.do(ctx, "DELETE", redirectsPath, redirectsPath, nonNil(urls), nil)
}

// nonNil makes a nil slice encode as the JSON array [] rather than null,
// which the service refuses.
func nonNil(urls []string) []string {
	if urls == nil {
		return []string{}
	}
	return urls
}
