package study

import (
	"testing"

	"github.com/rightsize/rightsize/plan"
)

func TestExternalDSN(t *testing.T) {
	t.Setenv("RS_TEST_PW", "p@ss:w/rd")
	for _, c := range []struct {
		cfg  plan.Configuration
		want string
		bad  bool
	}{
		{plan.Configuration{Target: "postgres://bench@db:5432/tpcc", PasswordEnv: "RS_TEST_PW"}, "postgres://bench:p%40ss%3Aw%2Frd@db:5432/tpcc", false},
		{plan.Configuration{Target: "mysql://db/tpcc"}, "mysql://db/tpcc", false},
		{plan.Configuration{Target: "postgres://db/tpcc", PasswordEnv: "RS_TEST_PW"}, "", true},
		{plan.Configuration{Target: "postgres://u@db/tpcc", PasswordEnv: "RS_TEST_UNSET"}, "", true},
	} {
		got, err := externalDSN(&c.cfg)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("externalDSN(%q, %s) = %q, %v; want %q (error %v)", c.cfg.Target, c.cfg.PasswordEnv, got, err, c.want, c.bad)
		}
	}
}
