package telemetry

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
)

// SelfRSS returns this process's resident set size in bytes (Linux: VmRSS
// of /proc/self/status; an error elsewhere).
func SelfRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/self/status")
}
