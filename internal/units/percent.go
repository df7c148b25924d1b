// Package units reads and writes the quantities users write in flags and
// plan files: sizes (ParseSize, FormatSize, HumanBytes) and percentages
// (ParsePercent). Each has one parser; ranges are the caller's.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParsePercent reads a percentage, "20%" or "20", as 20. Its range is the
// caller's to check (a knee threshold is below 100, a headroom is not).
func ParsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a percentage such as 10%%", s)
	}
	return v, nil
}
