package agehosted

import (
	"context"
	"net/url"

	"github.com/verifyd/verifyd"
)

// Provider checks a person's age by a method other than the built-in
// document check: a credit-card check, the mobile operator, an e-mail-based
// estimation. A country offers a provider's method when it accepts it and a
// provider for it serves the environment. No real provider is integrated
// yet, so production offers only the document method; the sandbox has
// simulations (Simulation) whose outcome the tester picks. A simulated
// provider never serves production (New refuses it): a method is never
// offered by a fake that always succeeds.
type Provider interface {
	// Name identifies the provider in stored proofs and logs.
	Name() string
	// Method is the method the provider implements.
	Method() verifyd.AgeMethod
	// Simulated reports whether the provider only simulates a check.
	Simulated() bool
	// Start begins a check and says what the person sees next.
	Start(ctx context.Context, in ProviderStart) (ProviderStep, error)
	// Finish turns what came back into a result: adult, minor or failed.
	// Values are the simulation's form, or the query a real provider sends
	// the person back with (which the provider authenticates itself).
	Finish(ctx context.Context, in ProviderFinish) (verifyd.AgeResult, error)
}

// ProviderStart is what a provider learns when a check starts: no name,
// e-mail address or integrator, only what the check is for.
type ProviderStart struct {
	// ProofID names the check; Finish receives it again.
	ProofID     string
	Environment verifyd.Environment
	Country     string
	// ReturnURL is where a provider that takes the person to its own pages
	// sends them back (GET, with its answer in the query).
	ReturnURL string
}

// ProviderStep is what the flow page does next.
type ProviderStep struct {
	// RedirectURL sends the person to the provider's pages.
	RedirectURL string
	// Choices are the outcomes a simulation lets the tester pick.
	Choices []verifyd.AgeResult
}

// ProviderFinish is what came back from a check.
type ProviderFinish struct {
	ProofID string
	Values  url.Values
}

// Simulation is the sandbox's stand-in for a provider: the page shows the
// outcomes and the tester picks one (adult, minor or failed).
type Simulation struct{ method verifyd.AgeMethod }

// NewSimulation returns a simulation of a method.
func NewSimulation(m verifyd.AgeMethod) Simulation { return Simulation{method: m} }

// SandboxSimulations simulates every method but the document (which runs
// the real flow, decided by the sandbox's e-mail tags).
func SandboxSimulations() []Provider {
	return []Provider{NewSimulation(verifyd.AgeMethodCreditCard), NewSimulation(verifyd.AgeMethodMobileOperator),
		NewSimulation(verifyd.AgeMethodEmailEstimation)}
}

// Name implements Provider.
func (p Simulation) Name() string { return "sandbox-simulation-" + string(p.method) }

// Method implements Provider.
func (p Simulation) Method() verifyd.AgeMethod { return p.method }

// Simulated implements Provider.
func (Simulation) Simulated() bool { return true }

// simulationChoices are the outcomes a simulation offers.
var simulationChoices = []verifyd.AgeResult{verifyd.AgeResultAdult, verifyd.AgeResultMinor, verifyd.AgeResultFailed}

// Start implements Provider: the page shows the choices.
func (Simulation) Start(context.Context, ProviderStart) (ProviderStep, error) {
	return ProviderStep{Choices: simulationChoices}, nil
}

// Finish implements Provider: the tester's choice is the result.
func (Simulation) Finish(_ context.Context, in ProviderFinish) (verifyd.AgeResult, error) {
	r := verifyd.AgeResult(in.Values.Get("outcome"))
	for _, c := range simulationChoices {
		if r == c {
			return r, nil
		}
	}
	return "", verifyd.InvalidFields([]verifyd.FieldError{{Field: "outcome", Problem: "must be adult, minor or failed"}})
}
