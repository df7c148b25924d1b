package units

import "testing"

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
