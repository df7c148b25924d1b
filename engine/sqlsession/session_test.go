package sqlsession

import (
	"testing"
	"time"
)

// Integers in their canonical form are bound as integers, the rest
// (leading zeros, signs, doubles, text, too long) as text; NULL as nil.
func TestBindValue(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want any
	}{
		{nil, nil}, {[]byte{}, ""}, {[]byte("42"), int64(42)}, {[]byte("-7"), int64(-7)},
		{[]byte("007"), "007"}, {[]byte("+7"), "+7"}, {[]byte("1.5"), "1.5"}, {[]byte("abc"), "abc"},
		{[]byte("-9223372036854775808"), "-9223372036854775808"}, {[]byte("9223372036854775807"), int64(9223372036854775807)},
	} {
		if got := bindValue(c.in); got != c.want {
			t.Errorf("bindValue(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

// A column's value as a variable's text.
func TestText(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{int64(-3), "-3"}, {uint64(5), "5"}, {1.5, "1.5"}, {[]byte("12.00"), "12.00"}, {"x", "x"}, {true, "t"},
		{time.Date(2026, 11, 28, 19, 0, 1, 500000000, time.UTC), "2026-11-28 19:00:01.5"},
	} {
		if got := string(text(c.in)); got != c.want {
			t.Errorf("text(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
	if text(nil) != nil {
		t.Error("text(nil) is not NULL")
	}
}
