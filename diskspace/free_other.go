//go:build !unix

package diskspace

import (
	"errors"
	"io/fs"
)

func available(string) (int64, error) { return 0, errors.New("not supported on this system") }

func device(string) (uint64, bool) { return 0, false }

func onDisk(info fs.FileInfo) int64 { return info.Size() }
