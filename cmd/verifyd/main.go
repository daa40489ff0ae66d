// Command verifyd is the verifyd service and its operator tool. Run
// "verifyd help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/verifyd/verifyd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		if err != cli.ErrUsage {
			fmt.Fprintln(os.Stderr, "verifyd:", err)
		}
		os.Exit(cli.ExitCode(err))
	}
}
