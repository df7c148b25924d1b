package yamlfile

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type sample struct {
	N      int               `yaml:"n"`
	F      float64           `yaml:"f" want:"a number of cores; write e.g. f: 2"`
	B      bool              `yaml:"b"`
	L      []int             `yaml:"l"`
	M      map[string]string `yaml:"m"`
	S      []Str             `yaml:"s"`
	hidden int
	at     At
}

func (s *sample) UnmarshalYAML(n *yaml.Node) error {
	type plain sample
	return Collect(n, (*plain)(s), &s.at)
}

// TestCollect checks that every problem of a mapping is recorded, with its
// position and field, and that the good keys are still decoded.
func TestCollect(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"good", "n: 1\nf: 0.5\nb: true\nl: [1, 2]\nm: {a: b}\ns: [x, 2]\n", nil},
		{"types", "n: 1.5\nf: two\nb: maybe\nl: [1, x]\nm: {a: [1]}\ns: [x, {y: 1}]\n", []string{
			`1:4: n: "1.5" is not a whole number`,
			`2:4: f: "two" is not a number of cores; write e.g. f: 2`,
			`3:4: b: "maybe" is not true or false`,
			`4:8: l[1]: "x" is not a whole number`,
			`5:8: m.a: a list is not a single value`,
			`6:8: s[1]: a mapping is not a single value`,
		}},
		{"keys", "n: 1\nnn: 2\nhidden: 3\nn: 4\n", []string{
			`2:1: nn: unknown field; did you mean n? (known fields: b, f, l, m, n, s)`,
			`3:1: hidden: unknown field; known fields: b, f, l, m, n, s`,
			`4:1: n: written twice (first at line 1): keep one`,
		}},
		{"not a mapping", "[1]\n", []string{`1:1: a list is not a mapping: write key: value lines`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s sample
			if err := yaml.Unmarshal([]byte(c.text), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.at.Problems {
				got = append(got, strings.TrimPrefix(e.Error(), ":"))
			}
			if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
				t.Errorf("problems:\n%s\nwant:\n%s", g, w)
			}
			if c.name == "types" && (s.N != 0 || s.L[0] != 1 || s.S[0].Value != "x") {
				t.Errorf("the good values were not kept: %+v", s)
			}
		})
	}
}
