//go:build !linux

package rawsock

import "net"

// Wrap returns c unchanged: raw socket I/O is implemented for Linux only.
func Wrap(c net.Conn) net.Conn { return c }
