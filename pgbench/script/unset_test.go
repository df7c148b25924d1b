package script

import (
	"strings"
	"testing"
)

// TestCheckUnset: a meta-command reading a variable that nothing sets is
// found before anything runs, at its FILE:LINE:COLUMN; a variable that a
// \set of any script, a \gset or \aset, --define or pgbench itself sets
// is not, nor is an SQL command's (bound as NULL, as pgbench -M prepared).
func TestCheckUnset(t *testing.T) {
	for _, c := range []struct {
		name    string
		scripts []string // each parsed as sN.sql
		defined string   // --define's names, comma-separated
		want    string   // the error's start, "" for none
	}{
		{"set then read", []string{"\\set a 1\n\\set b :a + 1\n"}, "", ""},
		{"never set, in \\set", []string{"\\set a 1\n\\set b  abs(:a) + :nope\n"}, "", `s0.sql:2:19: undefined variable "nope"`},
		{"never set, in \\if", []string{"\\if :flag = 1\nSELECT 1;\n\\endif\n"}, "", `s0.sql:1:5: undefined variable "flag"`},
		{"never set, in \\elif", []string{"\\if 1\nSELECT 1;\n\\elif :f\nSELECT 2;\n\\endif\n"}, "", `s0.sql:3:7: undefined variable "f"`},
		{"never set, in \\sleep", []string{"SELECT 1;\n\\sleep :pause ms\n"}, "", `s0.sql:2:8: undefined variable "pause"`},
		{"in CASE", []string{"\\set x CASE WHEN :c THEN 1 ELSE 2 END\n"}, "", `s0.sql:1:18: undefined variable "c"`},
		{"the second script's", []string{"\\set a 1\n", "SELECT 1;\n\\set z :b\n"}, "", `s1.sql:2:8: undefined variable "b"`},
		{"set by another script", []string{"\\set a 1\n", "\\set b :a * 2\n"}, "", ""},
		{"read before its \\set", []string{"\\set b :a + 1\n\\set a 1\n"}, "", ""},
		{"--define", []string{"\\set b :d + 1\n\\sleep :d us\n"}, "d", ""},
		{"pgbench's own", []string{"\\set b :scale + :client_id + :random_seed + :default_seed\n"}, "", ""},
		{"a hash's default seed", []string{"\\set h hash(1) + permute(1, 10)\n"}, "", ""},
		{"\\gset sets any name", []string{"SELECT 1 AS x\n\\gset\n\\set y :whatever\n"}, "", ""},
		{"\\aset sets any name", []string{"\\set y :whatever\n", "SELECT 1 AS x\n\\aset\n"}, "", ""},
		{"\\gset's prefix", []string{"SELECT 1 AS x\n\\gset p_\n\\set y :p_x + :q_x\n"}, "", `s0.sql:3:15: undefined variable "q_x"`},
		{"SQL is bound as NULL", []string{"SELECT :nope;\n"}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var scripts []*Script
			for i, src := range c.scripts {
				s, err := Parse("s"+string(rune('0'+i))+".sql", src)
				if err != nil {
					t.Fatal(err)
				}
				scripts = append(scripts, s)
			}
			defined := func(name string) bool { return c.defined != "" && strings.Contains(","+c.defined+",", ","+name+",") }
			err := CheckUnset(scripts, defined)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("got %v, want none", err)
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("got %v, want %s...", err, c.want)
			case c.want != "" && !strings.Contains(err.Error(), "set it, or correct the name"):
				t.Errorf("%v: want the fix named", err)
			}
		})
	}
}
