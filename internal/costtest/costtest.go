// Package costtest holds the cost-file fixture that the tests of cost,
// report and cmd/rightsize share: the two servers of issue 12's worked
// example, on the same host of 20 physical cores (host_cores), giving 16 or
// 4 cores to the database VM (vm_cores), licensed per core. Tests build
// their cost files from it; no production code imports it.
package costtest

// Licences are the licences of both servers: the last lines of a config.
const Licences = `    licences:
      - {name: "OS Datacenter", per: host_core, pack: 16, pack_price: 6155}
      - {name: "DB Standard", per: vm_core, pack: 2, pack_price: 3717, minimum: 4}
`

// server is the start of both servers' hardware: the machine and its
// memory, before the disks.
const server = `    hardware:
      - {item: "2-socket server", price: 7595.62}
      - {item: "32 GB RDIMM", qty: 24, price: 204.99}
`

// HDD16 is the 16-core server with hard disks: the lines of a config after
// its name (and run).
const HDD16 = "    host_cores: 20\n    vm_cores: 16\n" + server +
	"      - {item: \"1.2 TB SAS HDD\", qty: 8, price: 189.00}\n" + Licences

// SSD4 is the 4-core server with SSDs, the lines of a config after its
// name (and run): hardware 14,331.30, OS 12,310.00 and DB 7,434.00, in
// all 34,075.30.
const SSD4 = "    host_cores: 20\n    vm_cores: 4\n" + server +
	"      - {item: \"960 GB SATA SSD\", qty: 8, price: 226.99}\n" + Licences
