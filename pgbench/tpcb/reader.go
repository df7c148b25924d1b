package tpcb

import "bytes"

// bytesReader hands an encoded chunk to pgconn's CopyFrom.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
