package main

import (
	"github.com/rightsize/rightsize/driver"
	"github.com/rightsize/rightsize/engine"
)

// parsedValue is a flag whose value is parsed once, when the command line
// is read: Set calls parse, so a bad value is cobra's one-line flag error
// (exit 2), and the options hold the typed value. It implements
// pflag.Value.
type parsedValue[T ~string] struct {
	p     *T
	parse func(string) (T, error)
}

// Set parses s into the flag's value.
func (v parsedValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

// String is the value as given (the stored flags keep it).
func (v parsedValue[T]) String() string { return string(*v.p) }

// Type is what help shows after the flag's name.
func (v parsedValue[T]) Type() string { return "string" }

func modeValue(p *engine.Mode) parsedValue[engine.Mode] {
	return parsedValue[engine.Mode]{p, engine.ParseMode}
}

func isolationValue(p *engine.Isolation) parsedValue[engine.Isolation] {
	return parsedValue[engine.Isolation]{p, engine.ParseIsolation}
}

func deliveryValue(p *driver.Delivery) parsedValue[driver.Delivery] {
	return parsedValue[driver.Delivery]{p, driver.ParseDelivery}
}
