// Command quickstart creates an identity verification with the Go SDK and
// reads it back. Set VERIFYD_BASE_URL, VERIFYD_API_KEY and
// VERIFYD_API_SECRET to a mount of a running verifyd (see README.md).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/verifyd/verifyd/sdk"
)

func main() {
	client, err := sdk.New(os.Getenv("VERIFYD_BASE_URL"), os.Getenv("VERIFYD_API_KEY"), os.Getenv("VERIFYD_API_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	v, err := client.Identity().Create(ctx, sdk.CreateRequest{
		Customer: sdk.Customer{ID: "3f0e8a4c-2b1d-4c5e-9f6a-7b8c9d0e1f2a", Email: "ada@example.com"},
		Webhook:  "http://127.0.0.1:9000/hook",
	})
	if err != nil {
		log.Fatal(err) // an *sdk.APIError carries the status, SPEC's message and the bad fields
	}
	fmt.Println("send the customer to", v.RedirectURI)
	got, err := client.Identity().Get(ctx, v.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("status:", got.Status, "reason:", got.Reason)
}
