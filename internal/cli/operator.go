package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/console"
	"github.com/verifyd/verifyd/webauth"
)

// openAccounts opens the database and returns the operator accounts on it.
func (e *env) openAccounts(ctx context.Context, sf *storeFlags) (*console.Accounts, func(), error) {
	db, err := e.openOperatorStore(ctx, sf)
	if err != nil {
		return nil, nil, err
	}
	return console.NewAccounts(db, e.now), func() { db.Close() }, nil
}

// operatorOut is an operator in command output.
type operatorOut struct {
	Username   string     `json:"username"`
	Password   string     `json:"password,omitempty"`
	Status     string     `json:"status,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	DisabledAt *time.Time `json:"disabled_at,omitempty"`
}

func operatorOf(o verifyd.Operator) operatorOut {
	out := operatorOut{Username: o.Username, Status: "active", CreatedAt: o.CreatedAt, DisabledAt: o.DisabledAt}
	if !o.Active() {
		out.Status = "disabled"
	}
	return out
}

// readPassword reads one line from stdin, without its line ending.
func (e *env) readPassword() (string, error) {
	line, err := bufio.NewReader(io.LimitReader(e.stdin, webauth.MaxPasswordLen+3)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from stdin: %w", err)
	}
	if errors.Is(err, io.EOF) && len(line) > webauth.MaxPasswordLen {
		return "", fmt.Errorf("the password must have at most %d bytes", webauth.MaxPasswordLen)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func (e *env) operatorCreate(ctx context.Context, args []string) error {
	fs := e.flags("operator create", "operator create --username NAME [--generate] [--database URL]",
		lines("Creates an operator of the review console (/console). The password is read from stdin",
			fmt.Sprintf("(one line, at least %d characters), or with --generate a random one is made and printed once.", webauth.MinPasswordLen),
			`Prints one JSON object: {"username", "created_at"} (and "password" when generated).`,
			"Passwords are stored as argon2id hashes only (see docs/console.md)."))
	username := fs.String("username", "", "the operator's username (required): 1-64 of a-z 0-9 . _ @ -, case-insensitive")
	generate := fs.Bool("generate", false, "generate a strong password and print it instead of reading one from stdin")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *username == "" {
		fmt.Fprintln(e.stderr, "verifyd operator create: --username is required")
		return ErrUsage
	}
	var password string
	var err error
	if *generate {
		password, err = webauth.GeneratePassword(e.rand)
	} else {
		password, err = e.readPassword()
	}
	if err != nil {
		return err
	}
	if password == "" {
		return errors.New("no password on stdin (pipe one line, or use --generate)")
	}
	if err := webauth.CheckPassword(password); err != nil {
		return err
	}
	accounts, done, err := e.openAccounts(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	o, err := accounts.CreateOperator(ctx, *username, password)
	if err != nil {
		var ve *verifyd.Error
		if errors.As(err, &ve) {
			return errors.New(ve.Message)
		}
		return err
	}
	out := operatorOut{Username: o.Username, CreatedAt: o.CreatedAt}
	if *generate {
		out.Password = password
	}
	return e.printJSON(out)
}

func (e *env) operatorList(ctx context.Context, args []string) error {
	fs := e.flags("operator list", "operator list [--json] [--database URL]", "Lists the review console's operators, oldest first.")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	accounts, done, err := e.openAccounts(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	ops, err := accounts.Operators(ctx)
	if err != nil {
		return err
	}
	out := make([]operatorOut, len(ops))
	for n, o := range ops {
		out[n] = operatorOf(o)
	}
	if *asJSON {
		return e.printJSON(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USERNAME\tSTATUS\tCREATED\tDISABLED")
	for _, o := range out {
		disabled := "-"
		if o.DisabledAt != nil {
			disabled = o.DisabledAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Username, o.Status, o.CreatedAt.Format(time.RFC3339), disabled)
	}
	return tw.Flush()
}

func (e *env) operatorDisable(ctx context.Context, args []string) error {
	fs := e.flags("operator disable", "operator disable --username NAME [--database URL]",
		lines("Disables an operator: signing in is refused from now on and their open sessions end.",
			"Their past decisions stay in the verifications' history. Prints the operator as JSON."))
	username := fs.String("username", "", "the operator's username (required)")
	sf := e.addStoreFlags(fs)
	if help, err := e.parse(fs, args); help || err != nil {
		return err
	}
	if *username == "" {
		fmt.Fprintln(e.stderr, "verifyd operator disable: --username is required")
		return ErrUsage
	}
	accounts, done, err := e.openAccounts(ctx, sf)
	if err != nil {
		return err
	}
	defer done()
	o, err := accounts.DisableOperator(ctx, *username)
	if err != nil {
		return describe(err, "operator "+*username)
	}
	return e.printJSON(operatorOf(o))
}
