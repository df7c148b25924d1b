//go:build !unix

package instance

import "os"

// safeToExecute: files have no unix owner here; the installation's own
// permissions protect them.
func safeToExecute(string) error { return nil }

// safeDir: see safeToExecute.
func safeDir(string) error { return nil }

const oNoFollow = 0

func closedAncestor(string, int, int) string { return "" }

func fileOwner(string) (int, bool) { return 0, false }

func fileIDs(os.FileInfo) (int, int, bool) { return 0, 0, false }
