package mysql

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestAppendFloat(t *testing.T) {
	for _, x := range []float64{0, 0.1234, 0.5, 300000, -10, 9999.99, 0.01, 1e-7, 123.456789, 12.3, -0.0001, 50000} {
		if a, b := string(appendFloat(nil, x)), strconv.FormatFloat(x, 'f', -1, 64); a != b {
			t.Errorf("%v: %s, want %s", x, a, b)
		}
	}
}

func TestAppendTextAndLiteral(t *testing.T) {
	ts := time.Date(2026, 11, 22, 14, 5, 6, 0, time.UTC)
	for _, c := range []struct {
		v             any
		text, literal string
	}{
		{nil, `\N`, "NULL"},
		{"abc", "abc", "'abc'"},
		{"a\tb\\c\nd'e", `a\	b\\c\` + "\n" + `d'e`, `'a	b\\c` + "\n" + `d''e'`},
		{int32(-7), "-7", "-7"},
		{0.25, "0.25", "0.25"},
		{ts, "2026-11-22 14:05:06", "'2026-11-22 14:05:06'"},
		{true, "1", "1"},
	} {
		if got := string(appendText(nil, c.v)); got != c.text {
			t.Errorf("text %#v: %q, want %q", c.v, got, c.text)
		}
		if got := string(appendLiteral(nil, c.v)); got != c.literal {
			t.Errorf("literal %#v: %q, want %q", c.v, got, c.literal)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		s     string
		scale int
		want  int64
	}{{"0.1234", 4, 1234}, {"12.30", 2, 1230}, {"-10.00", 2, -1000}, {"7", 2, 700}, {"0.5", 4, 5000}} {
		if got, err := units(c.s, c.scale); err != nil || got != c.want {
			t.Errorf("units(%q, %d) = %d, %v; want %d", c.s, c.scale, got, err, c.want)
		}
	}
	if _, err := units("1.234", 2); err == nil {
		t.Error("units accepted too many decimals")
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{"12": 12, "-3": -3, "30010.00": 30010, "5.": 5} {
		if got, err := parseInt(s); err != nil || got != want {
			t.Errorf("parseInt(%q) = %d, %v", s, got, err)
		}
	}
	if _, err := parseInt("1.5"); err == nil {
		t.Error("parseInt accepted 1.5")
	}
}

// TestLockFailure: the script failures pgbench's aggregated log counts as
// deadlocks are InnoDB's deadlocks and lock wait timeouts, nothing else.
func TestLockFailure(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: erLockDeadlock}, true},
		{fmt.Errorf("exec: %w", &mysql.MySQLError{Number: erLockWaitTimeout}), true},
		{&mysql.MySQLError{Number: 1062}, false}, // duplicate key
		{errors.New("conn closed"), false},
	} {
		if got := lockFailure(c.err); got != c.want {
			t.Errorf("%v: deadlock %v, want %v", c.err, got, c.want)
		}
	}
}
