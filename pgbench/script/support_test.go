package script

import "testing"

// An engine without a meta-command a script uses is named at the
// command's FILE:LINE:COLUMN; with all of them, nothing is.
func TestUnsupported(t *testing.T) {
	s, err := Parse("a.sql", "\\set x 1\nSELECT :x AS y \\gset\n\\if :y = 1\n\\sleep 1 ms\n\\endif\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		meta []string
		want string
	}{
		{MetaCommands, ""},
		{[]string{"set", "sleep", "if", "else", "elif", "endif"}, "a.sql:2:1: \\gset: x cannot run it"},
		{[]string{"set", "gset", "if", "endif"}, "a.sql:4:1: \\sleep: x cannot run it"},
		{nil, "a.sql:1:1: \\set: x cannot run it"},
	} {
		got := ""
		if err := s.Unsupported(c.meta, "x"); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.meta, got, c.want)
		}
	}
}
