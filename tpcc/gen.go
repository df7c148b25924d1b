package tpcc

import (
	"time"
)

// RowSource yields generated rows. Its shape matches pgx's CopyFromSource so
// engines can stream it directly. The slice Values returns is reused: it is
// valid until the next call to Next. Decimal columns are float64 with at
// most 4 decimals (amounts in cents are exact), timestamps time.Time, NULL nil.
// Row gives the same row typed, without allocating (valid until Next too).
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Row() []Value
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
	b    rowBuilder
	fill func(i int, b *rowBuilder)
}

func (g *genSource) Next() bool {
	if g.i >= g.n {
		return false
	}
	g.b.text = g.b.text[:0]
	g.fill(g.i, &g.b)
	g.i++
	return true
}
func (g *genSource) Values() ([]any, error) { return g.b.values(), nil }
func (g *genSource) Row() []Value           { return g.b.row }
func (g *genSource) Err() error             { return nil }

func newSource(t Table, n int, fill func(i int, b *rowBuilder)) RowSource {
	return &genSource{n: n, b: newRowBuilder(t), fill: fill}
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

func genItem(cfg GenConfig) RowSource {
	r := NewRand(cfg.Seed, stream(sItem, 0, 0))
	return newSource(Item, NumItems, func(i int, b *rowBuilder) {
		row := b.row
		row[0] = intValue(i + 1)
		row[1] = intValue(r.Int(1, 10000))
		b.str(2, r.AString(b.next(), 14, 24))
		row[3] = centsValue(r.Cents(100, 10000))
		b.str(4, r.Original(b.next()))
	})
}

// address fills street_1, street_2, city, state, zip into columns at..at+4.
func address(r *Rand, b *rowBuilder, at int) {
	for k := range 3 {
		b.str(at+k, r.AString(b.next(), 10, 20))
	}
	b.str(at+3, r.State(b.next()))
	b.str(at+4, r.Zip(b.next()))
}

func genWarehouse(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sWarehouse, w, 0))
	return newSource(Warehouse, 1, func(_ int, b *rowBuilder) {
		row := b.row
		row[0] = intValue(w)
		b.str(1, r.AString(b.next(), 6, 10))
		address(r, b, 2)
		row[7] = rateValue(r.Int(0, 2000))
		row[8] = centsValue(300000_00)
	})
}

func genDistrict(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sDistrict, w, 0))
	return newSource(District, DistrictsPerWarehouse, func(i int, b *rowBuilder) {
		row := b.row
		row[0] = intValue(i + 1)
		row[1] = intValue(w)
		b.str(2, r.AString(b.next(), 6, 10))
		address(r, b, 3)
		row[8] = rateValue(r.Int(0, 2000))
		row[9] = centsValue(30000_00)
		row[10] = intValue(OrdersPerDistrict + 1)
	})
}

func genStock(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sStock, w, 0))
	return newSource(Stock, StockPerWarehouse, func(i int, b *rowBuilder) {
		row := b.row
		row[0] = intValue(i + 1)
		row[1] = intValue(w)
		row[2] = intValue(r.Int(10, 100))
		// the ten S_DIST_xx strings are drawn at once, then cut
		all := r.appendChars(b.next(), 24*DistrictsPerWarehouse, alnum)
		b.text = all
		for d := range DistrictsPerWarehouse {
			at := b.start + d*24
			row[3+d] = Value{Kind: KindText, Text: all[at : at+24 : at+24]}
		}
		row[13] = intValue(0)
		row[14] = intValue(0)
		row[15] = intValue(0)
		b.str(16, r.Original(b.next()))
	})
}

func genCustomer(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sCustomer, w, 0))
	since := Value{Kind: KindTime, Time: cfg.LoadTime}
	return newSource(Customer, DistrictsPerWarehouse*CustomersPerDistrict, func(i int, b *rowBuilder) {
		row := b.row
		c := i%CustomersPerDistrict + 1
		row[0] = intValue(c)
		row[1] = intValue(i/CustomersPerDistrict + 1)
		row[2] = intValue(w)
		b.str(3, r.AString(b.next(), 8, 16))
		b.constant(4, "OE")
		n := c - 1
		if c > 1000 {
			n = r.NURand(ALast, cfg.Constants.CLastLoad, 0, 999)
		}
		b.str(5, AppendLastName(b.next(), n))
		address(r, b, 6)
		b.str(11, r.NString(b.next(), 16, 16))
		row[12] = since
		if r.Int(1, 10) == 1 {
			b.constant(13, "BC")
		} else {
			b.constant(13, "GC")
		}
		row[14] = centsValue(50000_00)
		row[15] = rateValue(r.Int(0, 5000))
		row[16] = centsValue(-10_00)
		row[17] = centsValue(10_00)
		row[18] = intValue(1)
		row[19] = intValue(0)
		b.str(20, r.AString(b.next(), 300, 500))
	})
}

func genHistory(cfg GenConfig, w int) RowSource {
	r := NewRand(cfg.Seed, stream(sHistory, w, 0))
	date := Value{Kind: KindTime, Time: cfg.LoadTime}
	return newSource(History, DistrictsPerWarehouse*CustomersPerDistrict, func(i int, b *rowBuilder) {
		row := b.row
		d := intValue(i/CustomersPerDistrict + 1)
		row[0] = intValue(i%CustomersPerDistrict + 1)
		row[1] = d
		row[2] = intValue(w)
		row[3] = d
		row[4] = intValue(w)
		row[5] = date
		row[6] = centsValue(10_00)
		b.str(7, r.AString(b.next(), 12, 24))
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
	entry := Value{Kind: KindTime, Time: cfg.LoadTime}
	var perm []int32
	var cnt []int8
	return newSource(Orders, DistrictsPerWarehouse*OrdersPerDistrict, func(i int, b *rowBuilder) {
		row := b.row
		o := i%OrdersPerDistrict + 1
		d := i/OrdersPerDistrict + 1
		if o == 1 {
			perm = customerPermutation(cfg, w, d)
			cnt = orderLineCounts(cfg, w, d)
		}
		row[0] = intValue(o)
		row[1] = intValue(d)
		row[2] = intValue(w)
		row[3] = intValue(int(perm[o-1]))
		row[4] = entry
		if o < FirstUndeliveredOrder {
			row[5] = intValue(r.Int(1, 10))
		} else {
			row[5] = Value{}
		}
		row[6] = intValue(int(cnt[o-1]))
		row[7] = intValue(1)
	})
}

func genNewOrders(w int) RowSource {
	return newSource(NewOrders, DistrictsPerWarehouse*NewOrdersPerDistrict, func(i int, b *rowBuilder) {
		b.row[0] = intValue(FirstUndeliveredOrder + i%NewOrdersPerDistrict)
		b.row[1] = intValue(i/NewOrdersPerDistrict + 1)
		b.row[2] = intValue(w)
	})
}

// orderLineSource walks districts, orders and lines of one warehouse.
type orderLineSource struct {
	cfg         GenConfig
	r           *Rand
	w, d, o, ln int
	cnt         []int8
	b           rowBuilder
}

func genOrderLine(cfg GenConfig, w int) RowSource {
	return &orderLineSource{cfg: cfg, r: NewRand(cfg.Seed, stream(sOrderLine, w, 0)), w: w, d: 0, o: OrdersPerDistrict, b: newRowBuilder(OrderLine)}
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
	b, r := &s.b, s.r
	row := b.row
	b.text = b.text[:0]
	row[0] = intValue(s.o)
	row[1] = intValue(s.d)
	row[2] = intValue(s.w)
	row[3] = intValue(s.ln)
	row[4] = intValue(r.Int(1, NumItems))
	row[5] = intValue(s.w)
	if s.o < FirstUndeliveredOrder {
		row[6] = Value{Kind: KindTime, Time: s.cfg.LoadTime}
		row[8] = centsValue(0)
	} else {
		row[6] = Value{}
		row[8] = centsValue(r.Cents(1, 999999))
	}
	row[7] = intValue(5)
	b.str(9, r.appendChars(b.next(), 24, alnum))
	return true
}
func (s *orderLineSource) Values() ([]any, error) { return s.b.values(), nil }
func (s *orderLineSource) Row() []Value           { return s.b.row }
func (s *orderLineSource) Err() error             { return nil }
