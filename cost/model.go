package cost

import (
	"github.com/shopspring/decimal"
)

var (
	one     = decimal.NewFromInt(1)
	hundred = decimal.NewFromInt(100)
)

// Money is an exact amount; JSON writes it as a number with every digit.
type Money struct{ decimal.Decimal }

// MarshalJSON writes the exact decimal as a JSON number.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// Cents formats the amount rounded to cents with thousands separators:
// 34075.3 → "34,075.30".
func (m Money) Cents() string { return groupDigits(m.StringFixed(2)) }

// ItemCost is one priced hardware item.
type ItemCost struct {
	Item string `json:"item"`
	// Units is qty, or the config's count for an item priced per core or GB.
	Units Dec   `json:"units"`
	Price Money `json:"price"`
	Cost  Money `json:"cost"`
}

// LicenceCost is one priced licence.
type LicenceCost struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Per  string `json:"per"`
	// Counted is what the rule counts before minimum and packs: cores
	// (× core factor, rounded up), instances, users, GB or hours.
	Counted Dec `json:"counted"`
	// Licensed is the number of cores paid for (per-core rules): Counted
	// raised to the minimum, in whole packs.
	Licensed int64 `json:"licensed_cores,omitempty"`
	// Packs is the number of packs bought (per-core rules).
	Packs int64 `json:"packs,omitempty"`
	// Pack is the pack size in cores and Minimum the minimum number of
	// cores (per-core rules).
	Pack    int `json:"pack,omitempty"`
	Minimum int `json:"minimum,omitempty"`
	// CoreFactor multiplied the cores (nil when 1).
	CoreFactor *Dec `json:"core_factor,omitempty"`
	// Base is the licence price for one purchase or one year.
	Base Money `json:"base"`
	// Support is the support over the years (SupportPct × Base × years).
	Support Money `json:"support"`
	// Cost is Base (× years for a yearly subscription) + Support.
	Cost Money `json:"cost"`
	// SharePct is Cost / (hardware + the config's other licences) × 100,
	// as the published studies print it; nil when that sum is 0.
	SharePct *float64 `json:"share_pct"`
}

// Breakdown is one configuration's cost.
type Breakdown struct {
	Name     string        `json:"name"`
	Hardware Money         `json:"hardware"`
	Items    []ItemCost    `json:"items"`
	Licences []LicenceCost `json:"licences"`
	// Total is hardware + every licence.
	Total Money `json:"total"`
	// LicensedCores are the cores paid for by the config's per-core
	// database licences (the largest when there are several); 0 if none.
	LicensedCores int64 `json:"licensed_cores"`
}

// Kind returns the sum of the licences of one kind.
func (b *Breakdown) Kind(kind string) Money {
	sum := decimal.Zero
	for _, l := range b.Licences {
		if l.Kind == kind {
			sum = sum.Add(l.Cost.Decimal)
		}
	}
	return Money{sum}
}

// Price computes the cost of a validated config over years.
func (cf *Config) Price(years int) Breakdown {
	b := Breakdown{Name: cf.Name}
	hw := decimal.Zero
	for _, it := range cf.Hardware {
		units := decimal.NewFromInt(int64(it.Qty))
		if it.Per != "" {
			units = cf.count(it.Per)
		}
		c := units.Mul(it.Price.Decimal)
		hw = hw.Add(c)
		b.Items = append(b.Items, ItemCost{Item: it.Item, Units: Dec{units}, Price: Money{it.Price.Decimal}, Cost: Money{c}})
	}
	b.Hardware = Money{hw}
	total := hw
	for i := range cf.Licences {
		lc := cf.Licences[i].price(cf, years)
		total = total.Add(lc.Cost.Decimal)
		if lc.Kind == KindDatabase && lc.Licensed > b.LicensedCores {
			b.LicensedCores = lc.Licensed
		}
		b.Licences = append(b.Licences, lc)
	}
	b.Total = Money{total}
	for i := range b.Licences {
		rest := total.Sub(b.Licences[i].Cost.Decimal)
		if rest.IsPositive() {
			v, _ := b.Licences[i].Cost.Div(rest).Mul(hundred).Float64()
			b.Licences[i].SharePct = &v
		}
	}
	return b
}

// count is the config's count for a per-core or per-GB rule.
func (cf *Config) count(per string) decimal.Decimal {
	switch per {
	case PerHostCore:
		return cf.HostCores.Decimal
	case PerVMCore:
		return cf.VMCores.Decimal
	case PerMemoryGB:
		return cf.MemoryGB.Decimal
	}
	return decimal.Zero
}

// price applies the licence's rule to the config.
func (l *Licence) price(cf *Config, years int) LicenceCost {
	lc := LicenceCost{Name: l.Name, Kind: l.Kind, Per: l.Per}
	var counted, base decimal.Decimal
	switch l.Per {
	case PerHostCore, PerVMCore:
		cores := cf.count(l.Per).Mul(l.CoreFactor.Decimal).Ceil().IntPart()
		counted = decimal.NewFromInt(cores)
		lc.Licensed, lc.Packs = Packs(cores, l.Minimum, l.Pack)
		lc.Pack, lc.Minimum = l.Pack, l.Minimum
		if !l.CoreFactor.Equal(one) {
			lc.CoreFactor = &Dec{l.CoreFactor.Decimal}
		}
		base = decimal.NewFromInt(lc.Packs).Mul(l.PackPrice.Decimal)
	case PerInstance, PerUser:
		counted = decimal.NewFromInt(int64(l.Qty))
		base = counted.Mul(l.Price.Decimal)
	case PerMemoryGB:
		counted = cf.MemoryGB.Decimal
		base = counted.Mul(l.Price.Decimal)
	case PerHour:
		counted = l.Hours.Mul(decimal.NewFromInt(int64(l.Qty)))
		base = counted.Mul(l.Price.Decimal)
	}
	lc.Counted = Dec{counted}
	y := decimal.NewFromInt(int64(years))
	lc.Base = Money{base}
	lc.Support = Money{base.Mul(l.SupportPct.Decimal).Div(hundred).Mul(y)}
	c := base
	if l.Yearly {
		c = c.Mul(y)
	}
	lc.Cost = Money{c.Add(lc.Support.Decimal)}
	return lc
}

// Packs applies a per-core rule: cores raised to minimum, bought in whole
// packs of pack cores; it returns the cores paid for and the packs.
func Packs(cores int64, minimum, pack int) (licensed, packs int64) {
	n := max(cores, int64(minimum))
	p := int64(max(pack, 1))
	packs = (n + p - 1) / p
	return packs * p, packs
}

// groupDigits inserts thousands separators into a formatted number.
func groupDigits(s string) string {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i:]
			break
		}
	}
	var out []byte
	for i := range len(intPart) {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, intPart[i])
	}
	if neg {
		return "-" + string(out) + frac
	}
	return string(out) + frac
}

// Scaled returns the config sized for a candidate: vm_cores becomes
// vmCores and, when memoryGB is not nil, memory_gb becomes it. Items and
// licences counted per vm_core or memory_gb follow (per-core licences
// round the cores up to whole cores); everything else stays as written.
func (cf Config) Scaled(vmCores decimal.Decimal, memoryGB *decimal.Decimal) Config {
	cf.VMCores = Dec{vmCores}
	if memoryGB != nil {
		cf.MemoryGB = Dec{*memoryGB}
	}
	return cf
}

// Find returns the config with that name (nil when there is none).
func (f *File) Find(name string) *Config {
	for i := range f.Configs {
		if f.Configs[i].Name == name {
			return &f.Configs[i]
		}
	}
	return nil
}
