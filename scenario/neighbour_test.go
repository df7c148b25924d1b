package scenario

import (
	"reflect"
	"strings"
	"testing"
)

func TestInstanceCores(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		cpus      float64
		ncpu      int
		cores     [][]int
		driver    []int
		noteHas   string
		noteEmpty bool
	}{
		{"no --cpus", 2, 0, 2, nil, nil, "", true},
		{"one core each on two", 2, 1, 2, [][]int{{1}, {0}}, []int{0, 1}, "the driver shares them", false},
		{"one core each, two left", 2, 1, 4, [][]int{{3}, {2}}, []int{0, 1}, "n1 3, n2 2; the driver 0-1", false},
		{"fraction takes whole cores", 2, 1.5, 4, [][]int{{2, 3}, {0, 1}}, []int{0, 1, 2, 3}, "n1 2-3, n2 0-1", false},
		{"do not fit: shared", 3, 1, 2, [][]int{{1}, {1}, {1}}, nil, "needs 3 cores and this machine has 2: the instances share cores 1", false},
		{"two cores each on two: shared", 2, 2, 2, [][]int{{0, 1}, {0, 1}}, nil, "share cores 0-1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cores, driver, note := InstanceCores(c.n, c.cpus, c.ncpu)
			if !reflect.DeepEqual(cores, c.cores) || !reflect.DeepEqual(driver, c.driver) {
				t.Errorf("cores %v driver %v, want %v and %v", cores, driver, c.cores, c.driver)
			}
			if (note == "") != c.noteEmpty || !strings.Contains(note, c.noteHas) {
				t.Errorf("note %q, want it to say %q", note, c.noteHas)
			}
		})
	}
}
