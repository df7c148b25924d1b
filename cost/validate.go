package cost

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/yamlfile"
)

// What a licence or item is counted per.
const (
	PerHostCore = "host_core" // physical cores of the host
	PerVMCore   = "vm_core"   // cores of the database VM or instance
	PerInstance = "instance"  // qty instances (default 1)
	PerUser     = "user"      // qty users
	PerMemoryGB = "memory_gb" // the config's memory_gb
	PerHour     = "hour"      // hours (× qty)
)

// Licence kinds: how the report splits a config's cost.
const (
	KindOS       = "os"
	KindDatabase = "database"
	KindOther    = "other"
)

var (
	licencePers = []string{PerHostCore, PerVMCore, PerInstance, PerUser, PerMemoryGB, PerHour}
	itemPers    = []string{PerHostCore, PerVMCore, PerMemoryGB}
	kinds       = []string{KindOS, KindDatabase, KindOther}
	// onlyFor lists the licence fields that apply to some rules only.
	onlyFor = map[string][]string{
		"pack": {PerHostCore, PerVMCore}, "pack_price": {PerHostCore, PerVMCore}, "minimum": {PerHostCore, PerVMCore},
		"core_factor": {PerHostCore, PerVMCore}, "price": {PerInstance, PerUser, PerMemoryGB, PerHour},
		"qty": {PerInstance, PerUser, PerHour}, "hours": {PerHour},
	}
)

func isCore(per string) bool { return per == PerHostCore || per == PerVMCore }

func oneOf(v string, list []string) bool {
	for _, x := range list {
		if v == x {
			return true
		}
	}
	return false
}

// checker collects validation errors with their positions.
type checker struct {
	errs yamlfile.Errors
	file string
}

func (c *checker) add(p yamlfile.Pos, field, format string, args ...any) {
	c.errs = append(c.errs, &yamlfile.Error{File: c.file, Line: p.Line, Column: p.Column, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Validate checks the file, fills in defaults and presets, and returns
// every problem found (none: nil).
func (f *File) Validate() yamlfile.Errors {
	c := &checker{file: f.Path}
	if f.Currency == "" {
		f.Currency = "USD"
	}
	switch {
	case !f.at.Has("years"):
		f.Years = 1
	case f.Years < 1:
		c.add(f.at.Of("years"), "years", "must be at least 1 (the period yearly subscriptions and support are counted over)")
	}
	if len(f.Configs) == 0 {
		c.add(f.at.Pos, "configs", "no configuration: add at least one under configs:")
	}
	seen := map[string]bool{}
	for i := range f.Configs {
		cf := &f.Configs[i]
		path := fmt.Sprintf("configs[%d]", i)
		switch {
		case strings.TrimSpace(cf.Name) == "":
			c.add(cf.at.Of("name"), path+".name", "missing: every config needs a name")
		case seen[cf.Name]:
			c.add(cf.at.Of("name"), path+".name", "%q is used twice: names must be unique", cf.Name)
		}
		seen[cf.Name] = true
		cf.validate(c, path)
	}
	if f.Baseline != "" && !seen[f.Baseline] {
		c.add(f.at.Of("baseline"), "baseline", "%q is not a config name (configs: %s)", f.Baseline, strings.Join(f.names(), ", "))
	}
	c.errs.Sort()
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs
}

func (f *File) names() []string {
	var out []string
	for _, c := range f.Configs {
		out = append(out, c.Name)
	}
	return out
}

func (cf *Config) validate(c *checker, path string) {
	for _, k := range []struct {
		key string
		v   Dec
	}{{"host_cores", cf.HostCores}, {"vm_cores", cf.VMCores}, {"memory_gb", cf.MemoryGB}} {
		if k.v.IsNegative() {
			c.add(cf.at.Of(k.key), path+"."+k.key, "must not be negative")
		}
	}
	if len(cf.Hardware) == 0 && len(cf.Licences) == 0 {
		c.add(cf.at.Pos, path, "config %q has no price: add hardware items (item, qty, price) or licences", cf.Name)
	}
	for i := range cf.Hardware {
		cf.Hardware[i].validate(c, cf, fmt.Sprintf("%s.hardware[%d]", path, i))
	}
	for i := range cf.Licences {
		cf.Licences[i].validate(c, cf, fmt.Sprintf("%s.licences[%d]", path, i))
	}
}

// needs reports a config field a rule counts on when it is missing.
func (cf *Config) needs(c *checker, at yamlfile.Pos, path, per string) {
	if per == "" || cf.at.Has(per+"s") || (per == PerMemoryGB && cf.at.Has("memory_gb")) {
		return
	}
	field := per + "s"
	if per == PerMemoryGB {
		field = "memory_gb"
	}
	c.add(at, path+".per", "per: %s needs the config's %s, which %q does not give", per, field, cf.Name)
}

func (it *Item) validate(c *checker, cf *Config, path string) {
	if strings.TrimSpace(it.Item) == "" {
		c.add(it.at.Of("item"), path+".item", "missing: name the item")
	}
	if !it.at.Has("price") {
		c.add(it.at.Pos, path+".price", "missing: every item needs a price")
	} else if it.Price.IsNegative() {
		c.add(it.at.Of("price"), path+".price", "must not be negative (%s)", it.Price)
	}
	switch {
	case it.at.Has("per") && !oneOf(it.Per, itemPers):
		c.add(it.at.Of("per"), path+".per", "%q is not one of %s", it.Per, strings.Join(itemPers, ", "))
	case it.at.Has("per") && it.at.Has("qty"):
		c.add(it.at.Of("qty"), path+".qty", "an item priced per %s is counted by the config, not by qty", it.Per)
	case it.at.Has("per"):
		cf.needs(c, it.at.Of("per"), path, it.Per)
	}
	if !it.at.Has("qty") {
		it.Qty = 1
	} else if it.Qty < 1 {
		c.add(it.at.Of("qty"), path+".qty", "must be at least 1")
	}
}

func (l *Licence) validate(c *checker, cf *Config, path string) {
	if l.at.Has("use") {
		p, ok := preset(l.Use)
		if !ok {
			c.add(l.at.Of("use"), path+".use", "no preset %q (presets: %s)", l.Use, strings.Join(presetKeys(), ", "))
			return
		}
		p.apply(l)
	}
	if strings.TrimSpace(l.Name) == "" {
		c.add(l.at.Pos, path+".name", "missing: name the licence, or use: a preset")
	}
	if !oneOf(l.Per, licencePers) {
		at := l.at.Of("per")
		if !l.given("per") {
			c.add(at, path+".per", "missing: say what the licence is counted per (%s)", strings.Join(licencePers, ", "))
		} else {
			c.add(at, path+".per", "%q is not one of %s", l.Per, strings.Join(licencePers, ", "))
		}
		return
	}
	if !l.given("kind") {
		l.Kind = KindDatabase
		if l.Per == PerHostCore {
			l.Kind = KindOS
		}
	} else if !oneOf(l.Kind, kinds) {
		c.add(l.at.Of("kind"), path+".kind", "%q is not one of %s", l.Kind, strings.Join(kinds, ", "))
	}
	for key, pers := range onlyFor {
		if l.at.Has(key) && !oneOf(l.Per, pers) {
			c.add(l.at.Of(key), path+"."+key, "does not apply to per: %s (only to %s)", l.Per, strings.Join(pers, ", "))
		}
	}
	cf.needs(c, l.at.Of("per"), path, map[string]string{PerHostCore: PerHostCore, PerVMCore: PerVMCore, PerMemoryGB: PerMemoryGB}[l.Per])
	if isCore(l.Per) {
		l.validateCores(c, path)
	} else {
		l.validateUnits(c, path)
	}
	if l.SupportPct.IsNegative() {
		c.add(l.at.Of("support_pct"), path+".support_pct", "must not be negative")
	}
}

func (l *Licence) validateCores(c *checker, path string) {
	if !l.given("pack") {
		l.Pack = 1
	} else if l.Pack < 1 {
		c.add(l.at.Of("pack"), path+".pack", "must be at least 1 core (a pack of %d cannot be bought)", l.Pack)
	}
	if !l.given("pack_price") {
		c.add(l.at.Pos, path+".pack_price", "missing: the price of one pack of %d cores", max(l.Pack, 1))
	} else if l.PackPrice.IsNegative() {
		c.add(l.at.Of("pack_price"), path+".pack_price", "must not be negative (%s)", l.PackPrice)
	}
	if l.Minimum < 0 {
		c.add(l.at.Of("minimum"), path+".minimum", "must not be negative (%d)", l.Minimum)
	}
	if !l.given("core_factor") {
		l.CoreFactor = Dec{one}
	} else if !l.CoreFactor.IsPositive() || l.CoreFactor.GreaterThan(one) {
		c.add(l.at.Of("core_factor"), path+".core_factor", "must be above 0 and at most 1 (%s)", l.CoreFactor)
	}
}

func (l *Licence) validateUnits(c *checker, path string) {
	if !l.given("price") {
		c.add(l.at.Pos, path+".price", "missing: the unit price per %s", l.Per)
	} else if l.Price.IsNegative() {
		c.add(l.at.Of("price"), path+".price", "must not be negative (%s)", l.Price)
	}
	switch {
	case l.Per == PerUser && !l.at.Has("qty"):
		c.add(l.at.Pos, path+".qty", "missing: the number of users licensed")
	case !l.at.Has("qty"):
		l.Qty = 1
	case l.Qty < 1:
		c.add(l.at.Of("qty"), path+".qty", "must be at least 1")
	}
	if l.Per == PerHour && !l.Hours.IsPositive() {
		c.add(l.at.Of("hours"), path+".hours", "per: hour needs hours above 0 (the hours paid for, e.g. 8760 for a year)")
	}
}
