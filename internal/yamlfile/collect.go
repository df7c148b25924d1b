package yamlfile

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Collect decodes a YAML mapping into v (a pointer to a struct with yaml
// tags) key by key, as Strict does, but does not stop at a problem: an
// unknown or repeated key, or a value of the wrong type, is recorded in
// a.Problems, with its position and its field relative to the mapping
// ("cpus", "values[2]"), and the other keys are still decoded. Collect
// itself never fails; the caller reports a.Problems under the mapping's
// path. A field's `want` tag says what its value must be, with the fix
// ("a number of cores; write e.g. cpus: 2"); without it the type's
// description is used ("a number").
func Collect(n *yaml.Node, v any, a *At) error {
	a.Pos, a.Keys, a.Problems = Pos{n.Line, n.Column}, map[string]Pos{}, nil
	if n.Kind != yaml.MappingNode {
		a.problem(n, "", notA(n, describe(reflect.TypeOf(v).Elem())))
		return nil
	}
	sv := reflect.ValueOf(v).Elem()
	fields := tagged(sv.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		f, known := fields[k.Value]
		switch {
		case !known:
			a.problem(k, k.Value, unknownField(k.Value, fields))
		case a.Has(k.Value):
			a.problem(k, k.Value, fmt.Sprintf("written twice (first at line %d): keep one", a.Keys[k.Value].Line))
		default:
			a.Keys[k.Value] = Pos{val.Line, val.Column}
			a.decode(val, sv.FieldByIndex(f.Index), k.Value, f.Tag.Get("want"))
		}
	}
	return nil
}

// decode decodes one value into dst, recording a problem of field when
// it does not fit; lists and mappings of plain values are decoded item by
// item, so that each bad item is named.
func (a *At) decode(val *yaml.Node, dst reflect.Value, field, want string) {
	_, custom := dst.Addr().Interface().(yaml.Unmarshaler)
	switch {
	case !custom && dst.Kind() == reflect.Slice && val.Kind == yaml.SequenceNode:
		list := reflect.MakeSlice(dst.Type(), len(val.Content), len(val.Content))
		for i, item := range val.Content {
			a.decode(item, list.Index(i), fmt.Sprintf("%s[%d]", field, i), "")
		}
		dst.Set(list)
	case !custom && dst.Kind() == reflect.Map && dst.Type().Key().Kind() == reflect.String && val.Kind == yaml.MappingNode:
		m := reflect.MakeMapWithSize(dst.Type(), len(val.Content)/2)
		for i := 0; i+1 < len(val.Content); i += 2 {
			item := reflect.New(dst.Type().Elem()).Elem()
			a.decode(val.Content[i+1], item, field+"."+val.Content[i].Value, "")
			m.SetMapIndex(reflect.ValueOf(val.Content[i].Value).Convert(dst.Type().Key()), item)
		}
		dst.Set(m)
	case truncated(val, dst.Kind()):
		a.failed(val, field, want, dst.Type(), errors.New("not whole"))
	default:
		if err := val.Decode(dst.Addr().Interface()); err != nil {
			a.failed(val, field, want, dst.Type(), err)
		}
	}
}

// truncated tells whether a number with a fraction would be decoded into
// a whole number (yaml.v3 drops the fraction: 1.5 would be 1).
func truncated(val *yaml.Node, k reflect.Kind) bool {
	whole := k >= reflect.Int && k <= reflect.Uint64
	return whole && val.Kind == yaml.ScalarNode && val.ShortTag() == "!!float"
}

// failed records a value that did not decode: in the words of the type's
// own UnmarshalYAML when it gave an *Error, else "X is not WANT".
func (a *At) failed(val *yaml.Node, field, want string, t reflect.Type, err error) {
	var e *Error
	if errors.As(err, &e) {
		a.Problems = append(a.Problems, &Error{Line: e.Line, Column: e.Column, Field: join(field, e.Field), Msg: e.Msg})
		return
	}
	if want == "" {
		want = describe(t)
	}
	a.problem(val, field, notA(val, want))
}

func (a *At) problem(n *yaml.Node, field, msg string) {
	a.Problems = append(a.Problems, &Error{Line: n.Line, Column: n.Column, Field: field, Msg: msg})
}

func join(field, sub string) string {
	switch {
	case sub == "":
		return field
	case field == "":
		return sub
	}
	return field + "." + sub
}

// notA words a value that is not what the field wants.
func notA(n *yaml.Node, want string) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list is not " + want
	case yaml.MappingNode:
		return "a mapping is not " + want
	}
	return fmt.Sprintf("%q is not %s", n.Value, want)
}

// describe says what a Go type accepts, in a plan writer's words.
func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a single value"
	case reflect.Slice, reflect.Array:
		return "a list: write [a, b] or one \"- item\" line each"
	case reflect.Pointer:
		return describe(t.Elem())
	}
	return "a mapping: write key: value lines"
}

// tagged maps the yaml tag names of a struct's fields to the fields.
func tagged(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" && f.IsExported() {
			out[name] = f
		}
	}
	return out
}

// unknownField words a key that is not a field, suggesting the nearest
// known one when it looks like a typo.
func unknownField(key string, fields map[string]reflect.StructField) string {
	known := make(map[string]bool, len(fields))
	best, bestD := "", 3
	for name := range fields {
		known[name] = true
		if d := distance(key, name); d < bestD || (d == bestD && name < best) {
			best, bestD = name, d
		}
	}
	list := strings.Join(sortedKeys(known), ", ")
	if best != "" {
		return fmt.Sprintf("unknown field; did you mean %s? (known fields: %s)", best, list)
	}
	return "unknown field; known fields: " + list
}

// distance is the Levenshtein distance of two short strings.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
