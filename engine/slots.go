package engine

// Slots are a server's connection slots as the benchmark's role sees them,
// for engines that limit connections (PostgreSQL, MySQL/MariaDB).
type Slots struct {
	// Max is the server's connection limit.
	Max int
	// Reserved are the slots of Max the role cannot use (PostgreSQL's
	// superuser_reserved_connections and reserved_connections for a role
	// without superuser).
	Reserved int
	// InUse counts the client connections open now, the asking one's
	// included.
	InUse int
	// Setting names the server setting that raises Max.
	Setting string
}

// Free is the number of connections the role can still open.
func (s Slots) Free() int { return s.Max - s.Reserved - s.InUse }
