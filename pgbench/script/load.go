package script

import (
	"fmt"
	"os"
)

// LoadFile reads and parses the script a -f option names: "FILE" or
// "FILE@WEIGHT".
func LoadFile(option string) (*Script, error) {
	name, weight, err := SplitWeight(option)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read script %s: %w", name, err)
	}
	s, err := Parse(name, string(src))
	if err != nil {
		return nil, err
	}
	s.Weight = weight
	return s, nil
}

// LoadBuiltin parses the built-in script a -b option names: "NAME" or
// "NAME@WEIGHT", NAME an unambiguous prefix.
func LoadBuiltin(option string) (*Script, error) {
	name, weight, err := SplitWeight(option)
	if err != nil {
		return nil, err
	}
	b, err := FindBuiltin(name)
	if err != nil {
		return nil, err
	}
	return ParseBuiltin(b, weight)
}
