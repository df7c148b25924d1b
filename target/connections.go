package target

import (
	"strconv"
	"strings"
)

// connectionHeadroom are the connection slots a managed server keeps
// beyond a run's users: the run's own, PostgreSQL's superuser slots, a
// consistency check or a monitoring session beside it.
const connectionHeadroom = 20

// fitConnections sets settings' max_connections to fit opt.Connections
// users and connectionHeadroom when current (the limit the server would
// start with) is lower and the user's own settings do not name the limit:
// a limit the user set stays, and the run's slot check says when it is too
// low. MariaDB spells settings with - or _.
func fitConnections(settings map[string]string, opt Options, current string) {
	for k := range opt.Settings {
		if strings.ReplaceAll(strings.ToLower(k), "-", "_") == "max_connections" {
			return
		}
	}
	n, err := strconv.Atoi(current)
	if err != nil || opt.Connections == 0 {
		return
	}
	if need := opt.Connections + connectionHeadroom; need > n {
		settings["max_connections"] = strconv.Itoa(need)
	}
}
