// Package yamlfile decodes YAML files strictly: unknown fields are
// refused, and every error names the file, line, column and field, on one
// line. Types opt in with an UnmarshalYAML that calls Strict (stop at the
// first problem) or Collect (record every problem and go on).
package yamlfile

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a problem in a cost or plan file, at a line and column.
type Error struct {
	File         string
	Line, Column int
	// Field is the field's path ("configs[1].licences[0].pack").
	Field string
	Msg   string
}

// Error formats "file:line:col: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Pos is a position in a YAML file.
type Pos struct{ Line, Column int }

// At records where a mapping and each of its keys' values are, and (when
// decoded by Collect) the problems found decoding it.
type At struct {
	Pos  Pos
	Keys map[string]Pos
	// Problems are the mapping's decoding problems, their Field relative
	// to the mapping and File left empty.
	Problems Errors
}

// Has tells whether the key was written.
func (a At) Has(key string) bool { _, ok := a.Keys[key]; return ok }

// Of is the position of the key's value (the mapping's when absent).
func (a At) Of(key string) Pos {
	if p, ok := a.Keys[key]; ok {
		return p
	}
	return a.Pos
}

// Strict decodes a YAML mapping into v (a pointer to a struct with yaml
// tags), refusing keys that are not fields, and records positions in a.
// Types call it from UnmarshalYAML with an alias type so that every nested
// mapping is checked the same way.
func Strict(n *yaml.Node, v any, a *At) error {
	if n.Kind != yaml.MappingNode {
		return &Error{Line: n.Line, Column: n.Column, Msg: "want a mapping (key: value lines)"}
	}
	known := yamlKeys(reflect.TypeOf(v).Elem())
	a.Pos = Pos{n.Line, n.Column}
	a.Keys = map[string]Pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !known[k.Value] {
			return &Error{Line: k.Line, Column: k.Column, Field: k.Value, Msg: "unknown field; known fields: " + strings.Join(sortedKeys(known), ", ")}
		}
		a.Keys[k.Value] = Pos{val.Line, val.Column}
	}
	return n.Decode(v)
}

// yamlKeys returns the yaml tag names of a struct type's fields.
func yamlKeys(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Decode decodes YAML text into v strictly, turning every decoding error
// into an *Error naming the file (and line and column when known).
func Decode(path string, b []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return syntaxError(path, err)
	}
	if len(doc.Content) == 0 {
		return &Error{File: path, Msg: "the file is empty"}
	}
	if err := doc.Content[0].Decode(v); err != nil {
		return FileError(path, err)
	}
	return nil
}

// syntaxError words a file the YAML parser stopped on: nothing after that
// line can be checked until it is fixed.
func syntaxError(path string, err error) error {
	e := FileError(path, err)
	var ye *Error
	if errors.As(e, &ye) {
		ye.Msg = "not valid YAML: " + ye.Msg + " (check the indentation, brackets and quotes from here; the rest of the file is checked once it parses)"
	}
	return e
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// FileError turns a YAML or decoding error into an *Error of the file.
func FileError(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.File = path
		return &c
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(strings.TrimSpace(msg), "yaml: unmarshal errors:")
	msg = strings.TrimSpace(msg)
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: path, Line: line, Msg: m[2]}
	}
	return &Error{File: path, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// Errors are every problem found in a file, in file order.
type Errors []*Error

// Error is the first problem, and how many more there are.
func (es Errors) Error() string {
	if len(es) == 0 {
		return "no error"
	}
	s := es[0].Error()
	if len(es) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(es)-1)
	}
	return s
}

// Sort orders errors by position.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Column < es[j].Column
	})
}

// Str is a string scalar that remembers where it was written, for list
// items whose errors must point at the item.
type Str struct {
	Value string
	Pos   Pos
}

// UnmarshalYAML reads a scalar (a number is kept as written).
func (s *Str) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &Error{Line: n.Line, Column: n.Column, Msg: notA(n, "a single value")}
	}
	s.Value, s.Pos = n.Value, Pos{n.Line, n.Column}
	return nil
}
