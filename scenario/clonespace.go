package scenario

import (
	"fmt"

	"github.com/rightsize/rightsize/diskspace"
)

// checkCloneSpace refuses, before any is made, the n file copies of the
// data directory src that the neighbour scenario makes next to it
// (instance.CloneDataDir) when its file system cannot hold them all: each
// takes what src takes on disk.
func checkCloneSpace(src string, n int) error {
	room, err := diskspace.Of(src)
	if err != nil {
		return nil // nothing known: the copy says why if it fails
	}
	each := diskspace.Used(src)
	if int64(n)*each <= room.Free {
		return nil
	}
	what := fmt.Sprintf("%d copies of this %s data directory need", n, diskspace.MiBs(each))
	if n == 1 {
		what = fmt.Sprintf("1 copy of this %s data directory needs", diskspace.MiBs(each))
	}
	fix := "free space there, or build into a --data-dir on a file system with more room"
	if fits := int(room.Free / max(each, 1)); fits > 0 {
		fix = fmt.Sprintf("use --instances %d or fewer, ", fits) + fix
	}
	return &diskspace.ShortError{What: what, Need: int64(n) * each, Room: room, Fix: fix}
}
