package plan

import (
	"slices"
	"testing"

	"github.com/rightsize/rightsize/registry"
)

// TestManagedEnginesRegistered keeps the engines a plan can manage in step
// with the engine registry: one per --target form marked Managed, named as
// the engine (postgres, whose managed form is "embedded") or as the form
// (mariadb, a managed form of the mysql engine).
func TestManagedEnginesRegistered(t *testing.T) {
	var registered []string
	for _, e := range registry.Engines() {
		for _, f := range e.Forms {
			if !f.Managed {
				continue
			}
			name := f.Short
			if f.Short == "embedded" {
				name = e.Name
			}
			registered = append(registered, name)
		}
	}
	slices.Sort(registered)
	plan := slices.Sorted(slices.Values(managedEngines))
	if !slices.Equal(registered, plan) {
		t.Errorf("managed engines: the plan knows %v, the registry %v", plan, registered)
	}
}
