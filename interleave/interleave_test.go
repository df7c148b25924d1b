package interleave

import (
	"context"
	"errors"
	"testing"
)

func TestOrder(t *testing.T) {
	var got string
	for r := 1; r <= 4; r++ {
		o := Order(r)
		got += o[0] + o[1]
	}
	if got != "ABBAABBA" {
		t.Errorf("order of 4 rounds %s, want ABBAABBA", got)
	}
	if l := LegLabel("gate", "B", 2); l != "gate B r2" {
		t.Errorf("label %q", l)
	}
}

// Fewer than 2 rounds, or no label, is refused before anything opens.
func TestRunRefuses(t *testing.T) {
	for _, o := range []Options{{Rounds: 1, Label: "x"}, {Rounds: 2}} {
		if legs, err := Run(context.Background(), nil, o); !errors.Is(err, ErrBadOptions) || legs != nil {
			t.Errorf("%+v: %v, want ErrBadOptions", o, err)
		}
	}
}
