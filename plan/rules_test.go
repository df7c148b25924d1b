package plan

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/internal/yamlfile"
	"github.com/rightsize/rightsize/scenario"
)

// TestAutopilotRulesAreRunsRules: a bad repeats, delivery, mode or
// isolation is said by a plan in the words run's flag gets, the flag
// written as the key, at the key's line and column: one rule for both.
func TestAutopilotRulesAreRunsRules(t *testing.T) {
	const head = "name: s\nbuild: {warehouses: 1}\nautopilot: {users: \"1\", duration: 10s, "
	for _, c := range []struct {
		flag, key, value string
		edit             func(o *scenario.RunOptions)
	}{
		{"repeat", "repeats", "0", func(o *scenario.RunOptions) { o.Repeats = 0 }},
		{"delivery", "delivery", "later", func(o *scenario.RunOptions) { o.Delivery = driver.Delivery("later") }},
		{"mode", "mode", "magic", func(o *scenario.RunOptions) { o.Mode = engine.Mode("magic") }},
		{"isolation", "isolation", "serializable", func(o *scenario.RunOptions) { o.Isolation = engine.Isolation("serializable") }},
	} {
		t.Run(c.key, func(t *testing.T) {
			o := scenario.RunOptions{RunSpec: scenario.RunSpec{Users: []int{1}, Repeats: 1, Spec: driver.Spec{Duration: time.Second}}}
			c.edit(&o)
			flagErr := o.Validate()
			if flagErr == nil {
				t.Fatal("run's options accepted")
			}
			_, err := Parse("plan.yaml", []byte(head+c.key+": "+c.value+"}\nconfigurations: [{name: a}]\n"))
			var es yamlfile.Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("plan errors %v, want one", err)
			}
			want := strings.TrimPrefix(flagErr.Error(), "--"+c.flag+" ")
			col := len("autopilot: {users: \"1\", duration: 10s, "+c.key+": ") + 1
			if e := es[0]; e.Field != "autopilot."+c.key || e.Msg != want || e.Line != 3 || e.Column != col {
				t.Errorf("plan says %s at %d:%d %q, want autopilot.%s at 3:%d %q (run: %q)", e.Field, e.Line, e.Column, e.Msg, c.key, col, want, flagErr)
			}
		})
	}
}
