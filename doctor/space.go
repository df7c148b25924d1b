package doctor

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rightsize/rightsize/diskspace"
)

// DataSpace is the data directory's database against its free space.
type DataSpace struct {
	// ClusterBytes is what the data directory takes on disk (0: it holds
	// no PostgreSQL cluster).
	ClusterBytes int64 `json:"cluster_bytes"`
	// CopyBytes is what the copy sweeps and fit restore from would take
	// (its files and WAL), estimated from the cluster's databases.
	CopyBytes int64 `json:"copy_bytes,omitempty"`
	// FitWarehouses is how many warehouses a new build fits in the free
	// space (diskspace.PostgresFits).
	FitWarehouses int `json:"fit_warehouses"`
}

// dataSpace measures dataDir's cluster, if any, against free bytes.
func dataSpace(dataDir string, free uint64) DataSpace {
	s := DataSpace{FitWarehouses: diskspace.PostgresFits(int64(free))}
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err == nil {
		s.ClusterBytes = diskspace.Used(dataDir)
		s.CopyBytes = diskspace.PostgresCopy(diskspace.PostgresDatabases(diskspace.Used(filepath.Join(dataDir, "base"))))
	}
	return s
}

// spaceText is the data line's end: the database against the free space.
func spaceText(s DataSpace, free uint64) string {
	if s.ClusterBytes == 0 {
		return fmt.Sprintf("; no database there yet: a build fits %d warehouse(s)", s.FitWarehouses)
	}
	fits := "fits"
	if s.CopyBytes > int64(free) {
		fits = "does NOT fit: sweeps and fit will refuse"
	}
	return fmt.Sprintf("; the database there takes %s, the copy sweeps and fit make about %s more (%s)",
		diskspace.MiBs(s.ClusterBytes), diskspace.MiBs(s.CopyBytes), fits)
}
