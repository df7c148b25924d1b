package instance

import (
	"maps"
	"testing"
)

func TestWithFreshWALSegments(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"none", nil, map[string]string{"wal_recycle": "off", "wal_init_zero": "off"}},
		{"others kept", map[string]string{"shared_buffers": "128MB"},
			map[string]string{"shared_buffers": "128MB", "wal_recycle": "off", "wal_init_zero": "off"}},
		{"the user's wal_recycle wins", map[string]string{"wal_recycle": "on"},
			map[string]string{"wal_recycle": "on", "wal_init_zero": "off"}},
		{"names in any case", map[string]string{"WAL_Init_Zero": "on"},
			map[string]string{"WAL_Init_Zero": "on", "wal_recycle": "off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := maps.Clone(tc.in)
			if got := withFreshWALSegments(tc.in); !maps.Equal(got, tc.want) {
				t.Errorf("withFreshWALSegments(%v) = %v, want %v", tc.in, got, tc.want)
			}
			if !maps.Equal(in, tc.in) {
				t.Errorf("the settings given changed: %v, were %v", tc.in, in)
			}
		})
	}
}
