// Package cli implements the verifyd command line: the server ("serve") and
// the operator commands. Run is the whole program; main only supplies the
// process's environment, so tests run the real program in-process.
package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/verifyd/verifyd"
	"github.com/verifyd/verifyd/seal"
	"github.com/verifyd/verifyd/sqlstore"
)

// ErrUsage is returned when the command line was wrong; the usage text has
// already been printed.
var ErrUsage = errors.New("usage")

// ExitCode maps Run's error to a process exit status: 2 for usage errors,
// 1 for everything else.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	}
	return 1
}

// env is the process environment as Run sees it.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	rand   io.Reader
	now    func() time.Time
}

const mainUsage = `verifyd — self-hostable age and identity verification

Usage:
  verifyd serve [--listen ADDR] [--database URL] [--dev] [--demo]
  verifyd business create --name NAME [--database URL]
  verifyd business list [--json]
  verifyd business set --business ID [--direct-liveness auto|review] [--retention-days N]
  verifyd business invite --business ID --email E --role owner|developer|viewer [--smtp-url URL --lang L] [--json]   dashboard invitation link (e-mailed with --smtp-url)
  verifyd key create --business ID --interface identity|age --environment production|sandbox [--json]
  verifyd key list --business ID [--json]
  verifyd key revoke --key KEY [--json]
  verifyd inspect --type T --country C --front FILE [--back FILE] [--selfie FILE]
  verifyd verification show ID [--json]
  verifyd webhooks list [--state pending|delivered|failed] [--verification ID] [--json]
  verifyd webhooks resend EVENT_ID [--json]
  verifyd audit list [--business ID] [--since TIME|DURATION] [--limit N] [--json]
  verifyd operator create --username NAME [--generate]   review console operator; password on stdin
  verifyd operator list [--json]
  verifyd operator disable --username NAME
  verifyd models fetch [--dir DIR] [--force]   download the pinned face and liveness models (npm registry)
  verifyd models check [--dir DIR]

API client commands, which call a running verifyd:
  verifyd identity create [--customer-id UUID] --email EMAIL [--phone P] [--redirect-uri URL] --webhook URL
  verifyd identity submit [--customer-id UUID] --email EMAIL --selfie FILE --document-type T
                          --document-country C --front FILE [--back FILE] --webhook URL
  verifyd identity get --id ID
  verifyd identity redact --id ID              delete images, evidence and e-mail for good
  verifyd redirects list | add URL... | replace URL... | remove URL...
  verifyd sandbox simulate --id ID --status started|approved|failed [--reason R]
  verifyd sandbox advance-time --id ID --seconds N
  verifyd webhooks receive [--listen ADDR]     a development receiver that checks signatures
They take --base-url, --api-key and --api-secret, or the environment variables
VERIFYD_BASE_URL, VERIFYD_API_KEY and VERIFYD_API_SECRET (preferable for the secret).

Run "verifyd COMMAND --help" for a command's options.
`

// Run runs the verifyd command line with the given arguments (without the
// program name).
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, rand: rand.Reader, now: time.Now}
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return ErrUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return e.serve(ctx, rest)
	case "business":
		return e.sub(verifyd.WithActor(ctx, e.operator()), "business", rest, map[string]func(context.Context, []string) error{
			"create": e.businessCreate, "list": e.businessList, "set": e.businessSet,
			"invite": e.businessInvite,
		})
	case "key":
		return e.sub(verifyd.WithActor(ctx, e.operator()), "key", rest, map[string]func(context.Context, []string) error{
			"create": e.keyCreate, "list": e.keyList, "revoke": e.keyRevoke,
		})
	case "identity":
		return e.sub(ctx, "identity", rest, map[string]func(context.Context, []string) error{
			"create": e.identityCreate, "submit": e.identitySubmit, "get": e.identityGet,
			"redact": e.identityRedact,
		})
	case "redirects":
		return e.sub(ctx, "redirects", rest, map[string]func(context.Context, []string) error{
			"list": e.redirectsList, "add": e.redirectsAdd, "replace": e.redirectsReplace, "remove": e.redirectsRemove,
		})
	case "verification":
		return e.sub(ctx, "verification", rest, map[string]func(context.Context, []string) error{
			"show": e.verificationShow,
		})
	case "webhooks":
		return e.sub(ctx, "webhooks", rest, map[string]func(context.Context, []string) error{
			"list": e.webhooksList, "resend": e.webhooksResend, "receive": e.webhooksReceive,
		})
	case "sandbox":
		return e.sub(ctx, "sandbox", rest, map[string]func(context.Context, []string) error{
			"simulate": e.sandboxSimulate, "advance-time": e.sandboxAdvanceTime,
		})
	case "inspect":
		return e.inspect(ctx, rest)
	case "operator":
		return e.sub(ctx, "operator", rest, map[string]func(context.Context, []string) error{
			"create": e.operatorCreate, "list": e.operatorList, "disable": e.operatorDisable,
		})
	case "audit":
		return e.sub(ctx, "audit", rest, map[string]func(context.Context, []string) error{
			"list": e.auditList,
		})
	case "models":
		return e.sub(ctx, "models", rest, map[string]func(context.Context, []string) error{
			"fetch": e.modelsFetch, "check": e.modelsCheck,
		})
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, mainUsage)
		return nil
	default:
		fmt.Fprintf(stderr, "verifyd: unknown command %q\n\n%s", cmd, mainUsage)
		return ErrUsage
	}
}

func (e *env) sub(ctx context.Context, name string, args []string, cmds map[string]func(context.Context, []string) error) error {
	if len(args) > 0 {
		if run, ok := cmds[args[0]]; ok {
			return run(ctx, args[1:])
		}
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(e.stdout, mainUsage)
			return nil
		}
	}
	fmt.Fprintf(e.stderr, "verifyd %s: want one of the subcommands below\n\n%s", name, mainUsage)
	return ErrUsage
}

// flags creates a flag set whose --help prints the given description.
func (e *env) flags(name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: verifyd %s\n\n%s\n\nOptions:\n", synopsis, description)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; --help prints usage to stdout and succeeds.
func (e *env) parse(fs *flag.FlagSet, args []string) (help bool, err error) {
	if help, err := e.parseFlags(fs, args); help || err != nil {
		return help, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "verifyd %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false, ErrUsage
	}
	return false, nil
}

// parseFlags runs fs.Parse once. The flag package prints the usage itself
// on --help and on errors, to the flag set's output; that is held back so
// that --help prints it once, to stdout, and an error once, to stderr
// after the error.
func (e *env) parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	usage := fs.Usage
	fs.Usage = func() {}
	err = fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(e.stdout)
		fs.Usage()
		return true, nil
	case err != nil:
		fs.Usage()
		return false, ErrUsage
	}
	return false, nil
}

// storeFlags are the options every command that opens the database takes.
type storeFlags struct {
	database      string
	masterKeyFile string
}

func (e *env) addStoreFlags(fs *flag.FlagSet) *storeFlags {
	sf := &storeFlags{}
	fs.StringVar(&sf.database, "database", e.envOr("VERIFYD_DATABASE", "sqlite://verifyd.db"),
		"database URL: sqlite://FILE or postgres://… (env VERIFYD_DATABASE)")
	fs.StringVar(&sf.masterKeyFile, "master-key-file", e.envOr("VERIFYD_MASTER_KEY_FILE", "verifyd.key"),
		"file holding the master key that encrypts secrets and images at rest; created (mode 0600) on first use.\n"+
			"The environment variable VERIFYD_MASTER_KEY (base64 of 32 bytes) takes precedence (env VERIFYD_MASTER_KEY_FILE)")
	return sf
}

func (e *env) envOr(name, def string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return def
}

// openStore opens the database and the master key, and checks that the key
// is the one the database was initialised with.
func (e *env) openStore(ctx context.Context, sf *storeFlags, logger *slog.Logger) (*sqlstore.DB, *seal.Sealer, error) {
	var key []byte
	if v := e.getenv("VERIFYD_MASTER_KEY"); v != "" {
		k, err := seal.ParseKey(v)
		if err != nil {
			return nil, nil, fmt.Errorf("VERIFYD_MASTER_KEY: %w", err)
		}
		key = k
	}
	db, err := sqlstore.Open(ctx, sf.database, logger)
	if err != nil {
		return nil, nil, err
	}
	if key == nil {
		// A new key may only be created for a database that has none yet;
		// otherwise a missing file would silently lock out every secret.
		_, err := db.Setting(ctx, "master_key_check")
		fresh := errors.Is(err, verifyd.ErrNotFound)
		if err != nil && !fresh {
			db.Close()
			return nil, nil, err
		}
		k, created, err := seal.LoadOrCreateKeyFile(sf.masterKeyFile, fresh, e.rand)
		if err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("master key: %w", err)
		}
		if created {
			logger.Info("created a new master key; back it up: without it stored secrets and images cannot be read",
				"file", sf.masterKeyFile)
		}
		key = k
	}
	sealer, err := seal.New(key, e.rand)
	if err == nil {
		err = sealer.Verify(ctx, db)
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, sealer, nil
}

// quietLogger is the logger of operator commands: warnings only, on stderr,
// so stdout stays machine-readable.
func (e *env) quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// printJSONLine prints v as one line of JSON (streams of records).
func (e *env) printJSONLine(v any) error { return json.NewEncoder(e.stdout).Encode(v) }

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func lines(s ...string) string { return strings.Join(s, "\n") }
