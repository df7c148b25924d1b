package registry

import (
	"strconv"
	"strings"
)

// connectionHeadroom are the connection slots a managed server keeps
// beyond a run's users: the run's own, PostgreSQL's superuser slots, a
// consistency check or a monitoring session beside it; and a tenth of the
// users more, for the delivery workers of deferred Delivery (one per 10
// warehouses, so one per 100 users of a run shaped as TPC-C asks, and
// enough down to one warehouse per 10 users).
func connectionHeadroom(users int) int { return 20 + users/10 }

// fitConnections sets settings' max_connections to fit opt.Connections
// users and their connectionHeadroom when current (the limit the server would
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
	if need := opt.Connections + connectionHeadroom(opt.Connections); need > n {
		settings["max_connections"] = strconv.Itoa(need)
	}
}
