// Package cost prices database server configurations from a cost file:
// hardware items, per-core, per-instance, per-user, per-GB and per-hour
// licences bought in whole packs above a minimum, yearly subscriptions and
// support over a number of years, and a catalogue of licence presets. Money
// is exact decimal arithmetic (shopspring/decimal), rounded to cents only
// when shown. Linked runs add price/performance from the results store.
package cost

import (
	"fmt"
	"os"
	"strings"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/rightsize/rightsize/internal/yamlfile"
)

// File is a cost file: the configurations to price and the baseline the
// savings are computed against.
type File struct {
	// Currency is the currency of every price (default USD); only shown.
	Currency string `yaml:"currency"`
	// Baseline names the config savings are computed against (optional).
	Baseline string `yaml:"baseline"`
	// Years is the period of the total cost of ownership: yearly
	// subscriptions and support are counted this many times (default 1).
	Years int `yaml:"years"`
	// Configs are the priced configurations.
	Configs []Config `yaml:"configs"`

	// Path is the file the cost model was read from (for messages).
	Path string `yaml:"-"`
	at   yamlfile.At
}

// Config is one priced configuration.
type Config struct {
	// Name identifies the configuration.
	Name string `yaml:"name"`
	// Run is a stored run id or label whose measurements give the
	// configuration's performance (optional).
	Run string `yaml:"run"`
	// HostCores are the physical cores of the host.
	HostCores Dec `yaml:"host_cores"`
	// VMCores are the cores given to the database VM or instance (may be
	// fractional; per-core licences round up to whole cores).
	VMCores Dec `yaml:"vm_cores"`
	// MemoryGB is the memory of the database VM or instance, in GB.
	MemoryGB Dec `yaml:"memory_gb"`
	// Hardware are the items bought.
	Hardware []Item `yaml:"hardware"`
	// Licences are the licences and subscriptions.
	Licences []Licence `yaml:"licences"`

	at yamlfile.At
}

// Item is a hardware item: qty × price, or, with Per, price × the
// config's vm_cores, host_cores or memory_gb (cloud-style sizing).
type Item struct {
	Item  string `yaml:"item"`
	Qty   int    `yaml:"qty"`
	Price Dec    `yaml:"price"`
	Per   string `yaml:"per"`

	at yamlfile.At
}

// Licence is a licence rule; see README ("cost") for the fields.
type Licence struct {
	// Name is shown in the table (default: the preset's name).
	Name string `yaml:"name"`
	// Use names a preset (Presets) whose fields this licence starts from.
	Use string `yaml:"use"`
	// Kind is os, database or other: the report's cost split. Without it,
	// per host_core counts as os and everything else as database.
	Kind string `yaml:"kind"`
	// Per is host_core, vm_core, instance, user, memory_gb or hour.
	Per string `yaml:"per"`
	// Pack is the number of cores per pack (per-core rules, default 1).
	Pack int `yaml:"pack"`
	// PackPrice is the price of one pack (per-core rules).
	PackPrice Dec `yaml:"pack_price"`
	// Minimum is the minimum number of cores licensed (per-core rules).
	Minimum int `yaml:"minimum"`
	// CoreFactor multiplies the cores before rounding up (Oracle's
	// processor core factor, 0.5 on x86; default 1).
	CoreFactor Dec `yaml:"core_factor"`
	// Price is the unit price for per instance, user, memory_gb and hour.
	Price Dec `yaml:"price"`
	// Qty is the number of instances or users (default 1 for instance and
	// hour; required for user).
	Qty int `yaml:"qty"`
	// Hours is the number of hours paid for per hour.
	Hours Dec `yaml:"hours"`
	// Yearly makes the price a yearly subscription, paid Years times.
	Yearly bool `yaml:"yearly"`
	// SupportPct adds support: this percentage of the licence price, per
	// year, over Years.
	SupportPct Dec `yaml:"support_pct"`

	at     yamlfile.At
	filled map[string]bool // fields a preset filled in
}

// given tells whether the field was written or filled in by a preset.
func (l *Licence) given(key string) bool { return l.at.Has(key) || l.filled[key] }

// Dec is an exact decimal number: read from its YAML text (never through
// a float) and written to JSON as a number with every digit.
type Dec struct{ decimal.Decimal }

// MarshalJSON writes the exact decimal as a JSON number.
func (d Dec) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalYAML reads a YAML number as an exact decimal.
func (d *Dec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return &yamlfile.Error{Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("want a number, got %q", n.Value)}
	}
	v, err := decimal.NewFromString(strings.ReplaceAll(n.Value, "_", ""))
	if err != nil {
		return &yamlfile.Error{Line: n.Line, Column: n.Column, Msg: fmt.Sprintf("want a number, got %q", n.Value)}
	}
	d.Decimal = v
	return nil
}

// UnmarshalYAML decodes strictly.
func (f *File) UnmarshalYAML(n *yaml.Node) error {
	type plain File
	return yamlfile.Strict(n, (*plain)(f), &f.at)
}

// UnmarshalYAML decodes strictly.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	type plain Config
	return yamlfile.Strict(n, (*plain)(c), &c.at)
}

// UnmarshalYAML decodes strictly; a flow mapping {item: ..., price: ...}
// works as well.
func (it *Item) UnmarshalYAML(n *yaml.Node) error {
	type plain Item
	return yamlfile.Strict(n, (*plain)(it), &it.at)
}

// UnmarshalYAML decodes strictly.
func (l *Licence) UnmarshalYAML(n *yaml.Node) error {
	type plain Licence
	return yamlfile.Strict(n, (*plain)(l), &l.at)
}

// Load reads, decodes and validates a cost file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read cost file: %w", err)
	}
	return Parse(path, b)
}

// Parse decodes and validates a cost file's text; path names it in errors.
// Every problem is a *yamlfile.Error; a validation failure is a
// yamlfile.Errors listing them all.
func Parse(path string, b []byte) (*File, error) {
	f := &File{}
	if err := yamlfile.Decode(path, b, f); err != nil {
		return nil, err
	}
	f.Path = path
	if errs := f.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}
