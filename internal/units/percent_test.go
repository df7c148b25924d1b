package units

import (
	"errors"
	"testing"
)

func TestParsePercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"20%", 20, true}, {"20", 20, true}, {" 2.5 % ", 2.5, true}, {"0%", 0, true}, {"-5%", -5, true}, {"150%", 150, true},
		{"", 0, false}, {"%", 0, false}, {"ten%", 0, false}, {"NaN%", 0, false}, {"Inf", 0, false}, {"20%%", 0, false},
	} {
		got, err := ParsePercent(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseShare(t *testing.T) {
	for _, tc := range []struct {
		in         string
		want       float64
		outOfRange bool
		ok         bool
	}{
		{"10%", 10, false, true}, {"99.9", 99.9, false, true}, {"0.1 %", 0.1, false, true},
		{"0%", 0, true, false}, {"100%", 0, true, false}, {"150%", 0, true, false}, {"-5", 0, true, false}, {"ten", 0, false, false},
	} {
		got, err := ParseShare(tc.in)
		if (err == nil) != tc.ok || got != tc.want || errors.Is(err, ErrOutOfRange) != tc.outOfRange {
			t.Errorf("ParseShare(%q) = %v, %v; want %v (ok %v, out of range %v)", tc.in, got, err, tc.want, tc.ok, tc.outOfRange)
		}
	}
}
