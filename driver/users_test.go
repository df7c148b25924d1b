package driver

import (
	"reflect"
	"testing"
)

func TestParseUsers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "4", want: []int{4}},
		{in: "1,2,3,5,8,13,21", want: []int{1, 2, 3, 5, 8, 13, 21}},
		{in: "fib:89", want: []int{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}},
		{in: "fib:100", want: []int{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}},
		{in: "1..128x2", want: []int{1, 2, 4, 8, 16, 32, 64, 128}},
		{in: "10..50+10", want: []int{10, 20, 30, 40, 50}},
		{in: "1, fib:3, 32", want: []int{1, 1, 2, 3, 32}},
		{in: "0", bad: true},
		{in: "-3", bad: true},
		{in: "abc", bad: true},
		{in: "1..8x1", bad: true},
		{in: "8..1x2", bad: true},
		{in: "fib:0", bad: true},
		{in: "", bad: true},
		{in: "1,,2", bad: true},
		{in: "200000", bad: true},
	} {
		got, err := ParseUsers(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseUsers(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseUsers(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}
