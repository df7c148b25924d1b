package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads a size in binary units, 512M, 1G, 1.5G, 64k, 512MiB or
// plain bytes (1M = 1 MiB): --memory, --size, --bs, an I/O limit's
// rbps/wbps and a plan's sizes all read it.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if len(t) > 0 {
		if m, ok := map[byte]int64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}[t[len(t)-1]]; ok {
			t, mult = t[:len(t)-1], m
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%q: want a positive size like 256M or 1G", s)
	}
	return int64(n * float64(mult)), nil
}

// FormatSize writes n bytes as ParseSize reads them, in the largest binary
// unit that keeps it whole: 1G, 512M, 1K, 1500.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// HumanBytes writes a byte count for people in decimal units, as the
// MB/s beside it: 999 bytes, 1.5 kB, 12.3 MB, 100.00 GB.
func HumanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}
