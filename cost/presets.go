package cost

import (
	"sort"

	"github.com/shopspring/decimal"
)

// Preset is a licence rule a cost file can name with `use:`; any field the
// licence writes overrides the preset's.
type Preset struct {
	// Key is the name used in the cost file (use: sqlserver-2022-standard).
	Key string `json:"key"`
	// Name is the licence's display name.
	Name string `json:"name"`
	// Kind is os or database.
	Kind string `json:"kind"`
	// Per, Pack, PackPrice, Minimum, CoreFactor and Price are the rule's
	// fields, as in a Licence.
	Per        string `json:"per"`
	Pack       int    `json:"pack,omitempty"`
	PackPrice  string `json:"pack_price,omitempty"`
	Minimum    int    `json:"minimum,omitempty"`
	CoreFactor string `json:"core_factor,omitempty"`
	Price      string `json:"price,omitempty"`
	// Source says where the price comes from and when it was read.
	Source string `json:"source"`
}

// The catalogue of presets: list prices in USD as their vendors publish
// them. They were taken from the sources named, at the dates given, and
// have not been re-checked since (this machine has no web access): check
// them against a current quote and override `pack_price`/`price` in the
// cost file.
var presets = []Preset{
	// Microsoft, "SQL Server 2019 pricing" (microsoft.com/sql-server/sql-server-2019-pricing),
	// read 2019-11: Standard per core $3,717 per 2-core pack, 4 cores minimum per VM/OS.
	{Key: "sqlserver-2019-standard", Name: "SQL Server 2019 Standard (per core)", Kind: KindDatabase, Per: PerVMCore, Pack: 2,
		PackPrice: "3717", Minimum: 4, Source: "microsoft.com SQL Server 2019 pricing, 2019-11"},
	// Same page, read 2019-11: Enterprise $13,748 per 2-core pack, 4 cores minimum.
	{Key: "sqlserver-2019-enterprise", Name: "SQL Server 2019 Enterprise (per core)", Kind: KindDatabase, Per: PerVMCore, Pack: 2,
		PackPrice: "13748", Minimum: 4, Source: "microsoft.com SQL Server 2019 pricing, 2019-11"},
	// Microsoft, "SQL Server 2022 pricing" (microsoft.com/sql-server/sql-server-2022-pricing),
	// read 2022-11: Standard per core $3,945 per 2-core pack, 4 cores minimum.
	{Key: "sqlserver-2022-standard", Name: "SQL Server 2022 Standard (per core)", Kind: KindDatabase, Per: PerVMCore, Pack: 2,
		PackPrice: "3945", Minimum: 4, Source: "microsoft.com SQL Server 2022 pricing, 2022-11"},
	// Same page, read 2022-11: Enterprise $15,123 per 2-core pack, 4 cores minimum.
	{Key: "sqlserver-2022-enterprise", Name: "SQL Server 2022 Enterprise (per core)", Kind: KindDatabase, Per: PerVMCore, Pack: 2,
		PackPrice: "15123", Minimum: 4, Source: "microsoft.com SQL Server 2022 pricing, 2022-11"},
	// Microsoft, "Windows Server 2022 pricing" (microsoft.com/windows-server/pricing), read
	// 2021-09: Standard $1,069 per 16-core pack, every physical core licensed, 16 cores minimum.
	{Key: "windows-server-2022-standard", Name: "Windows Server 2022 Standard", Kind: KindOS, Per: PerHostCore, Pack: 16,
		PackPrice: "1069", Minimum: 16, Source: "microsoft.com Windows Server 2022 pricing, 2021-09"},
	// Same page, read 2021-09: Datacenter $6,155 per 16-core pack, 16 cores minimum.
	{Key: "windows-server-2022-datacenter", Name: "Windows Server 2022 Datacenter", Kind: KindOS, Per: PerHostCore, Pack: 16,
		PackPrice: "6155", Minimum: 16, Source: "microsoft.com Windows Server 2022 pricing, 2021-09"},
	// Oracle, "Oracle Technology Global Price List" (oracle.com/corporate/pricing), read
	// 2023-03: Database Enterprise Edition $47,500 per processor; Processor Core Factor Table:
	// 0.5 for Intel and AMD x86. Software Update License & Support is 22 % per year
	// (add support_pct: 22).
	{Key: "oracle-ee", Name: "Oracle Database Enterprise Edition (per processor)", Kind: KindDatabase, Per: PerVMCore, Pack: 1,
		PackPrice: "47500", CoreFactor: "0.5", Source: "Oracle Technology Global Price List, 2023-03"},
	// PostgreSQL License (postgresql.org/about/licence): free of charge. A support
	// subscription is a separate licence line (per: vm_core or instance, yearly: true).
	{Key: "postgresql", Name: "PostgreSQL", Kind: KindDatabase, Per: PerInstance, Price: "0",
		Source: "postgresql.org licence: no charge"},
	// MariaDB Server, GPL v2 (mariadb.org): free of charge; support as above.
	{Key: "mariadb", Name: "MariaDB Server", Kind: KindDatabase, Per: PerInstance, Price: "0",
		Source: "mariadb.org, GPL v2: no charge"},
}

// Presets returns the catalogue, sorted by key.
func Presets() []Preset {
	out := append([]Preset(nil), presets...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// preset finds a preset by key.
func preset(key string) (Preset, bool) {
	for _, p := range presets {
		if p.Key == key {
			return p, true
		}
	}
	return Preset{}, false
}

func presetKeys() []string {
	var out []string
	for _, p := range Presets() {
		out = append(out, p.Key)
	}
	return out
}

// apply fills the licence's unwritten fields from the preset.
func (p Preset) apply(l *Licence) {
	dec := func(s string) Dec { return Dec{decimal.RequireFromString(s)} }
	if l.filled == nil {
		l.filled = map[string]bool{}
	}
	set := func(key string, fn func()) {
		if !l.at.Has(key) {
			fn()
			l.filled[key] = true
		}
	}
	set("name", func() { l.Name = p.Name })
	set("kind", func() { l.Kind = p.Kind })
	set("per", func() { l.Per = p.Per })
	if p.Pack > 0 {
		set("pack", func() { l.Pack = p.Pack })
	}
	if p.PackPrice != "" {
		set("pack_price", func() { l.PackPrice = dec(p.PackPrice) })
	}
	if p.Minimum > 0 {
		set("minimum", func() { l.Minimum = p.Minimum })
	}
	if p.CoreFactor != "" {
		set("core_factor", func() { l.CoreFactor = dec(p.CoreFactor) })
	}
	if p.Price != "" {
		set("price", func() { l.Price = dec(p.Price) })
	}
}
