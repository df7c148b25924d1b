// Package units reads and writes the quantities users write in flags and
// plan files: sizes (ParseSize, FormatSize, HumanBytes) and percentages
// (ParsePercent). Each has one parser; ranges are the caller's.
package units

import (
	"errors"
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

// ErrOutOfRange is the error of a percentage outside the range asked.
var ErrOutOfRange = errors.New("percentage out of range")

// ParseShare reads a percentage above 0 and below 100, the range of a
// knee threshold and of a precision: "10%" is 10. A number outside it is
// an ErrOutOfRange.
func ParseShare(s string) (float64, error) {
	v, err := ParsePercent(s)
	if err != nil {
		return 0, err
	}
	if v <= 0 || v >= 100 {
		return 0, rangeError(strings.TrimSpace(s) + ": want a percentage above 0 and below 100, such as 10%")
	}
	return v, nil
}

// rangeError is an ErrOutOfRange in its own words.
type rangeError string

func (e rangeError) Error() string        { return string(e) }
func (e rangeError) Is(target error) bool { return target == ErrOutOfRange }
