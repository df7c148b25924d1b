package engine

import "fmt"

// Isolation is the isolation New-Order, Payment, Order-Status and Delivery
// run at.
type Isolation string

// Isolation choices.
const (
	// IsolationSpec is level 3 of clause 3.4 (no dirty reads, no
	// non-repeatable reads, no phantoms) as each engine provides it; the
	// default.
	IsolationSpec Isolation = "spec"
	// IsolationReadCommitted is the server's read committed, as HammerDB
	// runs: not spec-compliant (Delivery may skip districts wrongly).
	IsolationReadCommitted Isolation = "read-committed"
)

// ParseIsolation validates an --isolation value ("" means spec).
func ParseIsolation(s string) (Isolation, error) {
	switch Isolation(s) {
	case "", IsolationSpec:
		return IsolationSpec, nil
	case IsolationReadCommitted:
		return IsolationReadCommitted, nil
	}
	return "", fmt.Errorf("unknown isolation %q: use spec or read-committed", s)
}

// Compliant reports whether i meets clause 3.4.
func (i Isolation) Compliant() bool { return i == "" || i == IsolationSpec }

// IsolationSetter is implemented by engines whose executors can run at a
// chosen isolation; SetIsolation applies to executors opened afterwards.
// Engines that do not implement it run at IsolationSpec.
type IsolationSetter interface {
	SetIsolation(Isolation)
}
