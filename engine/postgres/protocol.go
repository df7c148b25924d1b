package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wire speaks the extended query protocol on a virtual user's connection
// once pgconn has connected it and prepared its statements and handed it
// over (Hijack): a call is one write of Bind, Execute and Sync built in a
// reused buffer (for a pipeline, a Bind and Execute per statement and one
// Sync), then reads into another until ReadyForQuery, each result row's
// values left in place for the decoder. pgconn's per-call machinery
// (a write timer armed and stopped around each flush, a background reader,
// a message struct per message, a command tag) is about as much CPU as the
// rest of the call on the driver's side.
type wire struct {
	hc     *pgconn.HijackedConn
	x      exchanger // hc.Conn, when it is one (nil: write, then read)
	out    []byte    // messages to send
	in     []byte    // received bytes; in[r:] not yet parsed
	r      int       // start of the next message in in
	vals   [][]byte  // the values of the last DataRow, views of in
	broken error     // why the connection is unusable, once it is
}

// errConnBroken is what calls on a broken connection return; classify
// reads "conn closed" as a lost connection (reconnect).
var errConnBroken = errors.New("conn closed after an earlier error")

// exchanger is a connection that writes a request and reads the start of
// its reply in one call, sparing the read that would find nothing yet
// (rawsock's; the virtual users dial through it).
type exchanger interface {
	Exchange(req, b []byte) (int, error)
}

func newWire(hc *pgconn.HijackedConn) *wire {
	x, _ := hc.Conn.(exchanger)
	return &wire{hc: hc, x: x, in: make([]byte, 0, 8192)}
}

func (w *wire) int16(v int) { w.out = binary.BigEndian.AppendUint16(w.out, uint16(v)) }
func (w *wire) int32(v int) { w.out = binary.BigEndian.AppendUint32(w.out, uint32(v)) }

// send writes Bind (the parameters: the bytes of buf ending at each of
// ends, all binary or all text; every result column binary), Execute and
// Sync for statement stmt.
func (w *wire) send(stmt string, buf []byte, ends []int, bin bool) error {
	w.out = w.out[:0]
	w.bind(stmt, buf, ends, bin)
	return w.flush()
}

// bind appends Bind and Execute for statement stmt to the messages to
// send: the parameters are the bytes of buf ending at each of ends, all
// in binary format or all text; every result column comes back binary.
func (w *wire) bind(stmt string, buf []byte, ends []int, bin bool) {
	at := len(w.out)
	w.out = append(w.out, 'B', 0, 0, 0, 0, 0) // length, unnamed portal
	w.out = append(append(w.out, stmt...), 0)
	if bin {
		w.int16(1) // parameter formats: one for all, binary
		w.int16(1)
	} else {
		w.int16(0) // parameter formats: all text
	}
	w.int16(len(ends))
	start := 0
	for _, end := range ends {
		w.int32(end - start)
		w.out = append(w.out, buf[start:end]...)
		start = end
	}
	w.int16(1) // result formats: all binary
	w.int16(1)
	binary.BigEndian.PutUint32(w.out[at+1:], uint32(len(w.out)-at-1))
	w.out = append(w.out, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // unnamed portal, all rows
}

// flush appends Sync to the messages bound since the last flush and
// writes them all at once; through an exchanger it also reads the start
// of the reply, which next then parses.
func (w *wire) flush() error {
	w.out = append(w.out, 'S', 0, 0, 0, 4)
	return w.exchange()
}

// exchange writes the messages in out at once; through an exchanger it
// also reads the start of the reply, which next then parses.
func (w *wire) exchange() error {
	var err error
	if w.x != nil && w.compact() {
		var n int
		n, err = w.x.Exchange(w.out, w.in[len(w.in):cap(w.in)])
		w.in = w.in[:len(w.in)+n]
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
	} else {
		_, err = w.hc.Conn.Write(w.out)
	}
	w.out = w.out[:0]
	return err
}

// compact moves the unparsed bytes to the front of in and reports
// whether there is room after them.
func (w *wire) compact() bool {
	if w.r > 0 {
		w.in = w.in[:copy(w.in, w.in[w.r:])]
		w.r = 0
	}
	return len(w.in) < cap(w.in)
}

// query writes sql as a simple Query (it needs no Sync).
func (w *wire) query(sql string) error {
	w.out = append(w.out[:0], 'Q', 0, 0, 0, 0)
	w.out = append(append(w.out, sql...), 0)
	binary.BigEndian.PutUint32(w.out[1:], uint32(len(w.out)-1))
	return w.exchange()
}

// next returns the next message's type and body; the body stays valid
// until the following call.
func (w *wire) next() (byte, []byte, error) {
	for {
		if avail := len(w.in) - w.r; avail >= 5 {
			n := int(binary.BigEndian.Uint32(w.in[w.r+1:])) + 1
			if n < 5 {
				return 0, nil, fmt.Errorf("protocol: message %q of length %d", w.in[w.r], n-1)
			}
			if avail >= n {
				typ, body := w.in[w.r], w.in[w.r+5:w.r+n]
				w.r += n
				return typ, body, nil
			}
			if n > cap(w.in) {
				w.in = append(make([]byte, 0, n+4096), w.in[w.r:]...)
				w.r = 0
			}
		}
		if err := w.fill(); err != nil {
			return 0, nil, err
		}
	}
}

// fill reads more bytes, moving the unparsed ones to the front first.
func (w *wire) fill() error {
	w.compact()
	n, err := w.hc.Conn.Read(w.in[len(w.in):cap(w.in)])
	w.in = w.in[:len(w.in)+n]
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if n > 0 {
		return nil
	}
	return err
}

// dataRow splits a DataRow's body into its values (nil: NULL).
func (w *wire) dataRow(body []byte) error {
	if len(body) < 2 {
		return errors.New("protocol: short DataRow")
	}
	n := int(binary.BigEndian.Uint16(body))
	body = body[2:]
	w.vals = w.vals[:0]
	for range n {
		if len(body) < 4 {
			return errors.New("protocol: short DataRow")
		}
		l := int(int32(binary.BigEndian.Uint32(body)))
		body = body[4:]
		if l < 0 {
			w.vals = append(w.vals, nil)
			continue
		}
		if l > len(body) {
			return errors.New("protocol: short DataRow")
		}
		w.vals = append(w.vals, body[:l:l])
		body = body[l:]
	}
	return nil
}

// pgError decodes an ErrorResponse as pgconn does.
func pgError(body []byte) error {
	var er pgproto3.ErrorResponse
	if err := er.Decode(body); err != nil {
		return fmt.Errorf("protocol: %w", err)
	}
	return pgconn.ErrorResponseToPgError(&er)
}

// fail marks the connection broken by err and closes it; when a context
// ended the call, a cancel request first stops what the server is doing
// for it, in the background, as pgconn does.
func (w *wire) fail(err error, cancelled bool) {
	if w.broken != nil {
		return
	}
	w.broken = err
	if !cancelled {
		_ = w.hc.Conn.Close()
		return
	}
	_ = w.hc.Conn.SetDeadline(time.Unix(1, 0))
	go func(hc *pgconn.HijackedConn) {
		defer hc.Conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if pg, err := pgconn.Construct(hc); err == nil {
			_ = pg.CancelRequest(ctx)
		}
	}(w.hc)
}

// close ends the session (Terminate) and closes the connection.
func (w *wire) close() error {
	if w.broken != nil {
		return nil
	}
	w.broken = net.ErrClosed
	_ = w.hc.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = w.hc.Conn.Write([]byte{'X', 0, 0, 0, 4})
	return w.hc.Conn.Close()
}
