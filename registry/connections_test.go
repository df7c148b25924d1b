package registry

import "testing"

func TestFitConnections(t *testing.T) {
	for _, tc := range []struct {
		name        string
		connections int
		user        map[string]string
		current     string
		want        string // max_connections after; "" when not set
	}{
		{"fits the default", 100, nil, "300", ""},
		{"raised for the users and the headroom", 400, nil, "300", "460"},
		{"exactly at the default", 255, nil, "300", ""},
		{"one over", 256, nil, "300", "301"},
		{"the user's limit stays", 400, map[string]string{"max_connections": "50"}, "50", ""},
		{"the user's limit in MariaDB's spelling stays", 2000, map[string]string{"max-connections": "500"}, "1000", ""},
		{"no users given", 0, nil, "300", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := map[string]string{}
			fitConnections(settings, Options{Connections: tc.connections, Settings: tc.user}, tc.current)
			if got := settings["max_connections"]; got != tc.want {
				t.Errorf("max_connections %q, want %q", got, tc.want)
			}
		})
	}
}
