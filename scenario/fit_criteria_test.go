package scenario

import (
	"fmt"
	"testing"
)

// Fit's criteria are read by one parser each, for its flags and plans.
func TestFitCriteriaParsers(t *testing.T) {
	for _, c := range []struct {
		what, in, want string
	}{
		{"target", "5000", "5000  <nil>"},
		{"target", "from:old", "0 old <nil>"},
		{"target", "from:", `0  --target-nopm from: needs a stored run's id or label, e.g. from:old-16vc`},
		{"target", "-3", `0  --target-nopm "-3": want a positive number or from:RUN`},
		{"target", "NaN", `0  --target-nopm "NaN": want a positive number or from:RUN`},
		{"headroom", "20%", "20 <nil>"},
		{"headroom", "0", "0 <nil>"},
		{"headroom", "-5%", `0 --headroom "-5%": want a percentage of 0 or more, such as 20%`},
		{"at", "peak", "0 <nil>"},
		{"at", "8", "8 <nil>"},
		{"at", "0", `0 --at "0": want peak or a users count`},
		{"check at", "3", `--at 3: not a step of --users 1,2,4; want peak or one of them`},
		{"check at", "4", "<nil>"},
		{"confidence", "mean", "true <nil>"},
		{"confidence", "range", "false <nil>"},
		{"confidence", "median", `false --confidence "median": want range (every repeat's interval above the target) or mean (the interval of the mean across repeats)`},
	} {
		var got string
		switch c.what {
		case "target":
			n, from, err := ParseTargetNOPM(c.in)
			got = fmt.Sprint(n, " ", from, " ", err)
		case "headroom":
			v, err := ParseHeadroom(c.in)
			got = fmt.Sprint(v, " ", err)
		case "at":
			n, err := ParseAt(c.in)
			got = fmt.Sprint(n, " ", err)
		case "check at":
			n, _ := ParseAt(c.in)
			got = fmt.Sprint(CheckAt(n, []int{1, 2, 4}))
		case "confidence":
			m, err := ParseConfidence(c.in)
			got = fmt.Sprint(m, " ", err)
		}
		if got != c.want {
			t.Errorf("%s %q: got %s, want %s", c.what, c.in, got, c.want)
		}
	}
}
