package postgres

import (
	"testing"

	"github.com/rightsize/rightsize/waits"
)

func TestPGClass(t *testing.T) {
	cases := []struct {
		typ, event string
		class      waits.Class
		name       string
	}{
		{"", "", waits.CPU, "CPU"},
		{"Lock", "transactionid", waits.Lock, "Lock:transactionid"},
		{"LWLock", "WALWrite", waits.Log, "LWLock:WALWrite"},
		{"LWLock", "BufferContent", waits.Latch, "LWLock:BufferContent"},
		{"IO", "WALSync", waits.Log, "IO:WALSync"},
		{"IO", "DataFileRead", waits.IO, "IO:DataFileRead"},
		{"Client", "ClientRead", waits.Client, "Client:ClientRead"},
		{"BufferPin", "BufferPin", waits.Latch, "BufferPin:BufferPin"},
		{"IPC", "SyncRep", waits.Log, "IPC:SyncRep"},
		{"Timeout", "CommitDelay", waits.Log, "Timeout:CommitDelay"},
		{"IPC", "MessageQueueSend", waits.Other, "IPC:MessageQueueSend"},
	}
	for _, c := range cases {
		if cl, n := pgClass(c.typ, c.event); cl != c.class || n != c.name {
			t.Errorf("pgClass(%q, %q) = %s, %s; want %s, %s", c.typ, c.event, cl, n, c.class, c.name)
		}
	}
}
