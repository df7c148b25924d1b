package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/registry"
	"github.com/rightsize/rightsize/store"
)

// ErrOOMKilled marks a run whose server the kernel's OOM killer hit under
// its cgroup memory limit: the run is failed, with that reason.
var ErrOOMKilled = errors.New("server killed by its memory limit")

// CapsEnvironment is the configuration a run ran under, for its stored
// environment: the caps asked (caps.asked, JSON), what the server's cgroup
// really applied, read back from its files (caps.applied, JSON, with what
// was not applied and why), and a one-line summary (caps.summary).
func CapsEnvironment(t *registry.Target) map[string]string {
	env := map[string]string{}
	if !t.Options.Caps.IsZero() {
		if b, err := json.Marshal(t.Options.Caps); err == nil {
			env["caps.asked"] = string(b)
		}
	}
	if r, ok := t.CapsReport(); ok {
		if b, err := json.Marshal(r); err == nil {
			env["caps.applied"] = string(b)
		}
		env["caps.summary"] = r.Summary()
		if len(r.Missing) > 0 {
			env[store.EnvCapsNotApplied] = strings.Join(r.Missing, ", ")
		}
	}
	return env
}

// requireCaps refuses (ErrBadOptions) a server on which one of the caps
// named (as cgroup.Report.Missing names them) was not applied: a sweep or
// fit that varies a cap must not measure one unlimited server under
// several labels, best effort or not.
func requireCaps(t *registry.Target, varied ...string) error {
	r, ok := t.CapsReport()
	if !ok {
		return nil
	}
	for _, m := range r.Missing {
		if slices.Contains(varied, m) {
			return bad("%s was not applied (%s); a sweep or fit that varies it needs it applied: see rightsize doctor", m, r.Summary())
		}
	}
	return nil
}

// oomFailure turns a run during which the server's OOM-kill count rose
// into an ErrOOMKilled failure.
func oomFailure(t *registry.Target, before int64, runErr error) error {
	n := t.ServerOOMKills() - before
	if n <= 0 {
		return runErr
	}
	why := fmt.Errorf("%w: the kernel's OOM killer killed %d server process(es) (memory limit %d MiB, count read from the server's cgroup)",
		ErrOOMKilled, n, t.Options.Caps.Memory>>20)
	if runErr != nil {
		return fmt.Errorf("%w; %v", why, runErr)
	}
	return why
}
