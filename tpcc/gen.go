package tpcc

import (
	"time"
)

// RowSource yields generated rows. Its shape matches pgx's CopyFromSource so
// engines can stream it directly. The slice Values returns is reused: it is
// valid until the next call to Next. Decimal columns are float64 with at
// most 4 decimals (amounts in cents are exact), timestamps time.Time, NULL nil.
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// GenConfig parameterises initial population.
type GenConfig struct {
	Seed      uint64
	LoadTime  time.Time // C_SINCE, H_DATE, O_ENTRY_D and the delivery dates of delivered orders
	Constants Constants // CLastLoad is used for C_LAST
}

// stream numbers keep every (table, warehouse, district) independent so any
// partitioning of the load gives the same data.
func stream(table, w, d int) uint64 { return uint64(table)<<48 | uint64(w)<<8 | uint64(d) }

const (
	sItem = iota + 1
	sWarehouse
	sDistrict
	sStock
	sCustomer
	sHistory
	sOrders
	sOrderLine
	sPerm
	sOLCnt
)

// genSource is a RowSource over n rows produced by fill.
type genSource struct {
	n, i int
	row  []any
	fill func(i int, row []any)
}

func (g *genSource) Next() bool {
	if g.i >= g.n {
		return false
	}
	g.fill(g.i, g.row)
	g.i++
	return true
}
func (g *genSource) Values() ([]any, error) { return g.row, nil }
func (g *genSource) Err() error             { return nil }

func newSource(t Table, n int, fill func(i int, row []any)) RowSource {
	return &genSource{n: n, row: make([]any, len(Columns[t])), fill: fill}
}

// Generate returns the rows of table t for warehouse w (ignored for ITEM,
// which is global). The data depend only on cfg and (t, w).
func Generate(cfg GenConfig, t Table, w int) RowSource {
	switch t {
	case Item:
		return genItem(cfg)
	case Warehouse:
		return genWarehouse(cfg, w)
	case District:
		return genDistrict(cfg, w)
	case Stock:
		return genStock(cfg, w)
	case Customer:
		return genCustomer(cfg, w)
	case History:
		return genHistory(cfg, w)
	case Orders:
		return genOrders(cfg, w)
	case NewOrders:
		return genNewOrders(w)
	case OrderLine:
		return genOrderLine(cfg, w)
	}
	panic("tpcc: unknown table " + string(t))
}

func cents(c int64) float64 { return float64(c) / 100 }
func rate(r int) float64    { return float64(r) / 10000 }

func genItem(cfg GenConfig) RowSource {
	r := NewRand(cfg.Seed, stream(sItem, 0, 0))
	var buf []byte
	return newSource(Item, NumItems, func(i int, row []any) {
		row[0] = int32(i + 1)
		row[1] = int32(r.Int(1, 10000))
		buf = r.AString(buf[:0], 14, 24)
		row[2] = string(buf)
		row[3] = cents(r.Cents(100, 10000))
		buf = r.Original(buf[:0])
		row[4] = string(buf)
	})
}

// address fills street_1, street_2, city, state, zip into row[at:at+5].
func address(r *Rand, buf []byte, row []any, at int) []byte {
	for k := range 3 {
		buf = r.AString(buf[:0], 10, 20)
		row[at+k] = string(buf)
	}
	buf = r.State(buf[:0])
	row[at+3] = string(buf)
	buf = r.Zip(buf[:0])
	row[at+4] = string(buf)
	return buf
}

func genWarehouse(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sWarehouse, w, 0))
	var buf []byte
	return newSource(Warehouse, 1, func(_ int, row []any) {
		row[0] = int32(w)
		buf = r.AString(buf[:0], 6, 10)
		row[1] = string(buf)
		buf = address(r, buf, row, 2)
		row[7] = rate(r.Int(0, 2000))
		row[8] = 300000.00
	})
}

func genDistrict(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sDistrict, w, 0))
	var buf []byte
	return newSource(District, DistrictsPerWarehouse, func(i int, row []any) {
		row[0] = int32(i + 1)
		row[1] = int32(w)
		buf = r.AString(buf[:0], 6, 10)
		row[2] = string(buf)
		buf = address(r, buf, row, 3)
		row[8] = rate(r.Int(0, 2000))
		row[9] = 30000.00
		row[10] = int32(OrdersPerDistrict + 1)
	})
}

func genStock(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sStock, w, 0))
	var buf []byte
	return newSource(Stock, StockPerWarehouse, func(i int, row []any) {
		row[0] = int32(i + 1)
		row[1] = int32(w)
		row[2] = int32(r.Int(10, 100))
		// the ten S_DIST_xx strings come from one buffer, one allocation
		buf = r.appendChars(buf[:0], 24*DistrictsPerWarehouse, alnum)
		all := string(buf)
		for d := range DistrictsPerWarehouse {
			row[3+d] = all[d*24 : (d+1)*24]
		}
		row[13] = int32(0)
		row[14] = int32(0)
		row[15] = int32(0)
		buf = r.Original(buf[:0])
		row[16] = string(buf)
	})
}

func genCustomer(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sCustomer, w, 0))
	var buf []byte
	since := cfg.LoadTime
	return newSource(Customer, DistrictsPerWarehouse*CustomersPerDistrict, func(i int, row []any) {
		c := i%CustomersPerDistrict + 1
		row[0] = int32(c)
		row[1] = int32(i/CustomersPerDistrict + 1)
		row[2] = int32(w)
		buf = r.AString(buf[:0], 8, 16)
		row[3] = string(buf)
		row[4] = "OE"
		n := c - 1
		if c > 1000 {
			n = r.NURand(ALast, cfg.Constants.CLastLoad, 0, 999)
		}
		row[5] = LastName(n)
		buf = address(r, buf, row, 6)
		buf = r.NString(buf[:0], 16, 16)
		row[11] = string(buf)
		row[12] = since
		if r.Int(1, 10) == 1 {
			row[13] = "BC"
		} else {
			row[13] = "GC"
		}
		row[14] = 50000.00
		row[15] = rate(r.Int(0, 5000))
		row[16] = -10.00
		row[17] = 10.00
		row[18] = int32(1)
		row[19] = int32(0)
		buf = r.AString(buf[:0], 300, 500)
		row[20] = string(buf)
	})
}

func genHistory(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sHistory, w, 0))
	var buf []byte
	return newSource(History, DistrictsPerWarehouse*CustomersPerDistrict, func(i int, row []any) {
		d := int32(i/CustomersPerDistrict + 1)
		row[0] = int32(i%CustomersPerDistrict + 1)
		row[1] = d
		row[2] = int32(w)
		row[3] = d
		row[4] = int32(w)
		row[5] = cfg.LoadTime
		row[6] = 10.00
		buf = r.AString(buf[:0], 12, 24)
		row[7] = string(buf)
	})
}

// customerPermutation returns the O_C_ID sequence of district (w, d): a
// random permutation of 1..3000.
func customerPermutation(cfg GenConfig, w, d int) []int32 {
	r := NewRand(cfg.Seed, stream(sPerm, w, d))
	p := make([]int32, CustomersPerDistrict)
	for i := range p {
		p[i] = int32(i + 1)
	}
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// orderLineCounts returns O_OL_CNT for every order of district (w, d); ORDER
// and ORDER-LINE generators share it so condition 3.3.2.4 holds after load.
func orderLineCounts(cfg GenConfig, w, d int) []int8 {
	r := NewRand(cfg.Seed, stream(sOLCnt, w, d))
	n := make([]int8, OrdersPerDistrict)
	for i := range n {
		n[i] = int8(r.Int(MinOrderLines, MaxOrderLines))
	}
	return n
}

func genOrders(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sOrders, w, 0))
	var perm []int32
	var cnt []int8
	return newSource(Orders, DistrictsPerWarehouse*OrdersPerDistrict, func(i int, row []any) {
		o := i%OrdersPerDistrict + 1
		d := i/OrdersPerDistrict + 1
		if o == 1 {
			perm = customerPermutation(cfg, w, d)
			cnt = orderLineCounts(cfg, w, d)
		}
		row[0] = int32(o)
		row[1] = int32(d)
		row[2] = int32(w)
		row[3] = perm[o-1]
		row[4] = cfg.LoadTime
		if o < FirstUndeliveredOrder {
			row[5] = int32(r.Int(1, 10))
		} else {
			row[5] = nil
		}
		row[6] = int32(cnt[o-1])
		row[7] = int32(1)
	})
}

func genNewOrders(w int) RowSource {
	return newSource(NewOrders, DistrictsPerWarehouse*NewOrdersPerDistrict, func(i int, row []any) {
		row[0] = int32(FirstUndeliveredOrder + i%NewOrdersPerDistrict)
		row[1] = int32(i/NewOrdersPerDistrict + 1)
		row[2] = int32(w)
	})
}

// orderLineSource walks districts, orders and lines of one warehouse.
type orderLineSource struct {
	cfg         GenConfig
	r           *Rand
	w, d, o, ln int
	cnt         []int8
	row         []any
	buf         []byte
}

func genOrderLine(cfg GenConfig, w int) RowSource {
	return &orderLineSource{cfg: cfg, r: NewRand(cfg.Seed, stream(sOrderLine, w, 0)), w: w, d: 0, o: OrdersPerDistrict, row: make([]any, len(Columns[OrderLine]))}
}

func (s *orderLineSource) Next() bool {
	s.ln++
	if s.cnt == nil || s.ln > int(s.cnt[s.o-1]) {
		s.ln = 1
		s.o++
		if s.o > OrdersPerDistrict {
			s.o = 1
			s.d++
			if s.d > DistrictsPerWarehouse {
				return false
			}
			s.cnt = orderLineCounts(s.cfg, s.w, s.d)
		}
	}
	row, r := s.row, s.r
	row[0] = int32(s.o)
	row[1] = int32(s.d)
	row[2] = int32(s.w)
	row[3] = int32(s.ln)
	row[4] = int32(r.Int(1, NumItems))
	row[5] = int32(s.w)
	if s.o < FirstUndeliveredOrder {
		row[6] = s.cfg.LoadTime
		row[8] = 0.0
	} else {
		row[6] = nil
		row[8] = cents(r.Cents(1, 999999))
	}
	row[7] = int32(5)
	s.buf = r.appendChars(s.buf[:0], 24, alnum)
	row[9] = string(s.buf)
	return true
}
func (s *orderLineSource) Values() ([]any, error) { return s.row, nil }
func (s *orderLineSource) Err() error             { return nil }
