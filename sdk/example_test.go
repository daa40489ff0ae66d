package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/verifyd/verifyd/sdk"
)

// The examples read credentials from the environment, as integrators'
// servers usually do. They need a running verifyd, so they are compiled but
// not run by go test.

func Example() {
	client, err := sdk.New("https://verify.example.com/sandbox/identity",
		os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	v, err := client.Identity().Create(ctx, sdk.CreateRequest{
		Customer: sdk.Customer{ID: "0f8fad5b-d9cb-469f-a165-70867728950e", Email: "jane@example.com"},
		Webhook:  "https://shop.example.com/hooks/verifyd",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("send the customer to", v.RedirectURI)
}

func ExampleNew() {
	client, err := sdk.New("https://verify.example.com/identity",
		os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"),
		sdk.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}),
		sdk.WithUserAgent("shop-backend/1.4"),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL())
}

func ExampleDefaultBaseURLs() {
	// A verifyd started locally with its default mounts.
	urls, err := sdk.DefaultBaseURLs("http://127.0.0.1:8080")
	if err != nil {
		log.Fatal(err)
	}
	client, err := sdk.New(urls.IdentitySandbox, os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL())
}

func ExampleIdentityClient_Get() {
	client, err := sdk.New("https://verify.example.com/identity",
		os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	v, err := client.Identity().Get(context.Background(), "5b0e6f5e-8d0b-4c47-9a43-1f6d1c1f9d11")
	var apiErr *sdk.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound:
		fmt.Println("no such verification")
	case err != nil:
		log.Fatal(err)
	case v.Status == sdk.StatusFailed:
		fmt.Println("failed:", v.Reason)
	default:
		fmt.Println("status:", v.Status)
	}
}

func ExampleIdentityClient_SubmitImages() {
	client, err := sdk.New("https://verify.example.com/sandbox/identity",
		os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	selfie, err := os.ReadFile("selfie.jpg")
	if err != nil {
		log.Fatal(err)
	}
	front, err := os.ReadFile("id-front.jpg")
	if err != nil {
		log.Fatal(err)
	}
	back, err := os.ReadFile("id-back.jpg")
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.Identity().SubmitImages(context.Background(), sdk.SubmitImagesRequest{
		Customer:        sdk.Customer{ID: "0f8fad5b-d9cb-469f-a165-70867728950e", Email: "jane@example.com"},
		DocumentType:    sdk.DocumentIDCard,
		DocumentCountry: "deu",
		Selfie:          selfie,
		DocumentFront:   front,
		DocumentBack:    back,
		Webhook:         "https://shop.example.com/hooks/verifyd",
	})
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) {
		for _, f := range apiErr.Fields {
			fmt.Println(f.Field, f.Problem)
		}
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.ID, res.Status)
}

func ExampleRedirectsClient() {
	// The allowed-redirect list exists on both interfaces; this is the age
	// interface's sandbox list.
	client, err := sdk.New("https://verify.example.com/sandbox/age",
		os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	redirects := client.Redirects()
	if err := redirects.Add(ctx, []string{"https://shop.example.com/age-verified"}); err != nil {
		log.Fatal(err)
	}
	urls, err := redirects.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(urls)
}

func ExampleVerifyWebhook() {
	apiKey, apiSecret := os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET")
	http.HandleFunc("POST /hooks/verifyd", func(w http.ResponseWriter, r *http.Request) {
		ev, err := sdk.VerifyWebhook(r, func(key string) (string, bool) {
			return apiSecret, key == apiKey
		})
		if errors.Is(err, sdk.ErrInvalidSignature) || errors.Is(err, sdk.ErrUnknownAPIKey) {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		if err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		log.Printf("verification %s of customer %s is now %s %s", ev.ID, ev.CustomerID, ev.Status, ev.Reason)
		w.WriteHeader(http.StatusNoContent)
	})
}

func ExampleVerifyWebhookBody() {
	// body and header come from a webhook request read elsewhere, for
	// example by a framework that has already consumed the body.
	body := []byte(`{"id":"5b0e6f5e-8d0b-4c47-9a43-1f6d1c1f9d11","customer_id":"0f8fad5b-d9cb-469f-a165-70867728950e","status":"approved","reason":""}`)
	header := "hmac idv_test_key:0000000000000000000000000000000000000000000000000000000000000000"
	if err := sdk.VerifyWebhookBody(body, header, os.Getenv("VERIFYD_API_SECRET")); err != nil {
		fmt.Println("rejected:", err)
	}
}
