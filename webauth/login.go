package webauth

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/verifyd/verifyd"
)

// LoginConfig describes one kind of sign-in (operators, age accounts).
type LoginConfig struct {
	// UserLimit is how many attempts one client address gets on one
	// account, ClientLimit how many one address gets on all accounts, and
	// AccountLimit how many an account gets from addresses that never
	// signed in to it, all per Window (defaults 5, 20, 10 × UserLimit and
	// 15 min). Failures from a stranger's address therefore never lock
	// the owner out of their own devices: an address the account signed
	// in from before is held to UserLimit alone.
	UserLimit, ClientLimit, AccountLimit int
	Window                               time.Duration
	Now                                  func() time.Time
	// BadLogin is the one answer to an unknown account, a wrong password
	// and a disabled account, so the answer does not tell which.
	BadLogin error
	// Limited is the answer to an attempt over a limit.
	Limited func(retryAfter time.Duration) error
}

// Logins checks passwords at sign-in, with attempts limited per account
// and per client address.
type Logins struct {
	cfg      LoginConfig
	users    *Limiter // account and address
	clients  *Limiter // address
	accounts *Limiter // account, from unknown addresses

	mu    sync.Mutex
	known map[string]time.Time // account|address that signed in → when
}

// maxKnown bounds the remembered good sign-ins; the oldest are forgotten.
const maxKnown = 100_000

// NewLogins returns the sign-in checks of cfg.
func NewLogins(cfg LoginConfig) *Logins {
	if cfg.UserLimit == 0 {
		cfg.UserLimit = 5
	}
	if cfg.ClientLimit == 0 {
		cfg.ClientLimit = 20
	}
	if cfg.Window == 0 {
		cfg.Window = 15 * time.Minute
	}
	if cfg.AccountLimit == 0 {
		cfg.AccountLimit = 10 * cfg.UserLimit
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Logins{cfg: cfg,
		users:    NewLimiter(cfg.UserLimit, cfg.Window, cfg.Now),
		clients:  NewLimiter(cfg.ClientLimit, cfg.Window, cfg.Now),
		accounts: NewLimiter(cfg.AccountLimit, cfg.Window, cfg.Now),
		known:    map[string]time.Time{}}
}

// Credential is what a sign-in needs to know of an account.
type Credential struct {
	// PasswordHash is the account's hash from HashPassword.
	PasswordHash string
	// Disabled refuses the account like a wrong password, once the
	// password has been checked.
	Disabled bool
	// Name names the account in the error of a hash that cannot be read
	// ("operator ada").
	Name string
}

// ClientKey is the limiter key of a client: its address, or its /64 for
// IPv6 (one IPv6 client usually holds a whole /64).
func ClientKey(client netip.Addr) string { return clientKey(client) }

func clientKey(client netip.Addr) string {
	if client.Is6() && !client.Is4In6() {
		p, _ := client.Prefix(64)
		return p.String()
	}
	return client.Unmap().String()
}

// TakeClient counts an attempt against the client's limit alone (a
// sign-up, which costs a hash too), and returns cfg.Limited's error when
// the client is over it.
func (l *Logins) TakeClient(client netip.Addr) error {
	if ok, wait := l.clients.Take(clientKey(client)); !ok {
		return l.cfg.Limited(wait)
	}
	return nil
}

// LogIn checks a sign-in attempt with password on the account userKey
// names (the limiter key of the account) from client. lookup finds the
// account's credential, or returns verifyd.ErrNotFound for an unknown
// account; it runs only when neither limit is reached.
//
// LogIn returns nil for the right password of an enabled account, and
// then forgets the account's failures and the client's attempt. It returns
// cfg.Limited's error when the account or the client is over its limit
// (counting nothing), cfg.BadLogin for an unknown or disabled account or a
// wrong password, lookup's other errors, and an error naming the account
// for a hash it cannot read. An unknown account costs as much time as a
// wrong password, and passwords are compared in constant time.
func (l *Logins) LogIn(userKey string, client netip.Addr, password string, lookup func() (Credential, error)) error {
	ipKey := clientKey(client)
	pairKey := userKey + "|" + ipKey
	known := l.isKnown(pairKey)
	okUser, waitUser := l.users.Take(pairKey)
	okIP, waitIP := l.clients.Take(ipKey)
	okAcct, waitAcct := true, time.Duration(0)
	if !known {
		okAcct, waitAcct = l.accounts.Take(userKey)
	}
	if !okUser || !okIP || !okAcct {
		if okUser {
			l.users.Forgive(pairKey)
		}
		if okIP {
			l.clients.Forgive(ipKey)
		}
		if okAcct && !known {
			l.accounts.Forgive(userKey)
		}
		return l.cfg.Limited(max(waitUser, waitIP, waitAcct))
	}
	c, err := lookup()
	if errors.Is(err, verifyd.ErrNotFound) {
		VerifyNobody(password)
		return l.cfg.BadLogin
	}
	if err != nil {
		return err
	}
	err = VerifyPassword(c.PasswordHash, password)
	if errors.Is(err, ErrMismatch) || (err == nil && c.Disabled) {
		return l.cfg.BadLogin
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	l.users.Reset(pairKey)
	l.clients.Forgive(ipKey)
	if !known {
		l.accounts.Forgive(userKey)
	}
	l.remember(pairKey)
	return nil
}

// isKnown reports whether the account signed in from the address within
// the last 90 days.
func (l *Logins) isKnown(pairKey string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.known[pairKey]
	return ok && l.cfg.Now().Sub(at) < 90*24*time.Hour
}

func (l *Logins) remember(pairKey string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.known) >= maxKnown {
		oldestKey, oldest := "", time.Time{}
		for k, at := range l.known {
			if oldestKey == "" || at.Before(oldest) {
				oldestKey, oldest = k, at
			}
		}
		delete(l.known, oldestKey)
	}
	l.known[pairKey] = l.cfg.Now()
}
