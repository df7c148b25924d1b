// Package tpcc is the engine-neutral TPC-C workload: cardinalities,
// deterministic row generators, transaction inputs, the mix deck,
// keying/think times and consistency conditions. It never imports an engine;
// engines implement the interfaces it defines.
package tpcc

import "fmt"

// Cardinalities of clause 4.3.3.1.
const (
	NumItems              = 100_000
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3_000
	OrdersPerDistrict     = 3_000
	NewOrdersPerDistrict  = 900
	StockPerWarehouse     = NumItems
	FirstUndeliveredOrder = OrdersPerDistrict - NewOrdersPerDistrict + 1 // 2101
	MinOrderLines         = 5
	MaxOrderLines         = 15
	// InvalidItemID is the unused item number the 1 % rolled-back New-Orders use.
	InvalidItemID = NumItems + 1
	// MaxWarehouses bounds --warehouses to something a single build can load.
	MaxWarehouses = 100_000
)

// NURand A values (clause 2.1.6).
const (
	ALast = 255
	ACID  = 1023
	AItem = 8191
)

// Constants are the NURand C values. CLastLoad is used while loading,
// CLastRun during runs; |CLastRun - CLastLoad| obeys the delta rule of 2.1.6.1.
type Constants struct {
	CLastLoad int `json:"c_last_load"`
	CLastRun  int `json:"c_last_run"`
	CID       int `json:"c_id"`
	CItem     int `json:"c_item"`
}

// LoadConstants draws the load-time C values from seed.
func LoadConstants(seed uint64) Constants {
	r := NewRand(seed, 0xC0)
	return Constants{CLastLoad: r.Int(0, ALast), CID: r.Int(0, ACID), CItem: r.Int(0, AItem)}
}

// ValidRunDelta reports whether a run-time C_LAST constant is allowed for the
// load-time one: the delta must be in [65, 119] and neither 96 nor 112.
func ValidRunDelta(load, run int) bool {
	d := run - load
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// WithRunConstants returns c with a run-time C_LAST drawn from r that obeys
// the delta rule. C_ID and OL_I_ID keep their values (the spec lets them be reused).
func (c Constants) WithRunConstants(r *Rand) Constants {
	for {
		run := r.Int(0, ALast)
		if ValidRunDelta(c.CLastLoad, run) {
			c.CLastRun = run
			return c
		}
	}
}

// ValidateWarehouses returns an error for an impossible warehouse count.
func ValidateWarehouses(w int) error {
	if w < 1 {
		return fmt.Errorf("warehouses must be at least 1 (got %d)", w)
	}
	if w > MaxWarehouses {
		return fmt.Errorf("warehouses must be at most %d (got %d)", MaxWarehouses, w)
	}
	return nil
}
