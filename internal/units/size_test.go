package units

import "testing"

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"256M": 256 << 20, "1G": 1 << 30, "1.5G": 3 << 29, "512MiB": 512 << 20, "4096": 4096, "64k": 64 << 10, " 8k ": 8 << 10, "1T": 1 << 40} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1G", "lots", "G", "Inf"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) accepted", s)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 10: "1K", 256 << 20: "256M", 1 << 30: "1G", 1536 << 20: "1536M", 1500: "1500", 0: "0"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
		if n > 0 {
			if back, err := ParseSize(want); err != nil || back != n {
				t.Errorf("ParseSize(%q) = %d, %v; want %d", want, back, err, n)
			}
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 999: "999 bytes", 1500: "1.5 kB", 12_345_678: "12.3 MB", 100e9: "100.00 GB", 3 << 40: "3298.53 GB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
