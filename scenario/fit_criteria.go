package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/units"
)

// The criteria of a right-size search as fit's flags and a plan's fit
// section say them: one parser each, whose errors name the flag (a plan
// reports them at its key).

// ParseTargetNOPM reads --target-nopm: a positive number n, or from:RUN
// (from: a stored run's id or label, or a configuration of a plan).
func ParseTargetNOPM(s string) (n float64, from string, err error) {
	if rest, ok := strings.CutPrefix(s, "from:"); ok {
		if strings.TrimSpace(rest) == "" {
			return 0, "", fmt.Errorf("--target-nopm from: needs a stored run's id or label, e.g. from:old-16vc")
		}
		return 0, rest, nil
	}
	n, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, "", fmt.Errorf("--target-nopm %q: want a positive number or from:RUN", s)
	}
	return n, "", nil
}

// ParseHeadroom reads --headroom: the margin added to the target, a
// percentage of 0 or more.
func ParseHeadroom(s string) (float64, error) {
	v, err := units.ParsePercent(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--headroom %q: want a percentage of 0 or more, such as 20%%", s)
	}
	return v, nil
}

// ParseAt reads --at: the step judged, peak (0) or a users count.
func ParseAt(s string) (int, error) {
	if s == "peak" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--at %q: want peak or a users count", s)
	}
	return n, nil
}

// CheckAt checks that the step judged (ParseAt: 0 is the peak) is a step
// of the users sequence measured.
func CheckAt(at int, users []int) error {
	if at == 0 || slices.Contains(users, at) {
		return nil
	}
	steps := make([]string, len(users))
	for i, u := range users {
		steps[i] = strconv.Itoa(u)
	}
	return fmt.Errorf("--at %d: not a step of --users %s; want peak or one of them", at, strings.Join(steps, ","))
}

// ParseConfidence reads fit's --confidence: range (every repeat's
// interval judged) or mean (the interval of the mean across repeats).
func ParseConfidence(s string) (mean bool, err error) {
	switch s {
	case "range":
		return false, nil
	case "mean":
		return true, nil
	}
	return false, fmt.Errorf("--confidence %q: want range (every repeat's interval above the target) or mean (the interval of the mean across repeats)", s)
}
