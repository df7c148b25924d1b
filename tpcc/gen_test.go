package tpcc

import (
	"testing"
)

// golden are the checksums (checksum: every row's Values printed) of each
// table of warehouse 2 for seed 42, as the generator of 2026-11-22
// (3831ca1) made them: the generated data must not change for a seed.
var golden = map[Table]string{
	Item:      "295323323fdfdba99fd14d6ec9f5edb0ac74b8f1c553b57187e488ccda09181f",
	Warehouse: "80917d27e248428f666a5d7808019154d772a80ed39829225cd53e5034dde238",
	District:  "f71cad75593463057e4a1a129ad48cb55d58ec72b261d7579f3ccd9d0ebcf3b9",
	Stock:     "451343f6730c03459ce1ed6cc257bba98778cf90f3ac5f89782b3bf739fc0291",
	Customer:  "5f6372112a9eae078c3810c2269467750160c0639c4d018d80042c3f206bc3ff",
	History:   "909e7f5b43706f1a9f44a959abe9b202f4cec47df47b3b7ea96b4cd5c619a37c",
	Orders:    "e175582080b9b04be84d9740e866cecf8cf347ef08e59dc00e98c3e9be9819fb",
	NewOrders: "b6ae848b795a5209d68e4600a15c7bd959b30f255e89ef12322838e682f42625",
	OrderLine: "289df822906bc877f5da8f60b51ffd760e1c883f4aee888330ea44a01616f1be",
}

func TestGeneratorGolden(t *testing.T) {
	cfg := GenConfig{Seed: 42, LoadTime: loadTime, Constants: LoadConstants(42)}
	for _, table := range Tables {
		t.Run(string(table), func(t *testing.T) {
			got, _ := checksum(t, cfg, table, 2)
			if got != golden[table] {
				t.Errorf("%s: checksum %s, want %s", table, got, golden[table])
			}
		})
	}
}

// TestRowAllocatesNothing: a warmed-up generator makes its typed rows
// without allocating (what is made once per district, a customer
// permutation, averages out).
func TestRowAllocatesNothing(t *testing.T) {
	cfg := GenConfig{Seed: 1, LoadTime: loadTime, Constants: LoadConstants(1)}
	for _, table := range Tables {
		if InitialRows(table, 1) < 3 {
			continue // one row: nothing to warm up with
		}
		t.Run(string(table), func(t *testing.T) {
			src := Generate(cfg, table, 1)
			src.Next()
			allocs := testing.AllocsPerRun(int(min(InitialRows(table, 1)-2, 5000)), func() {
				if !src.Next() {
					t.Fatal("source ended early")
				}
				_ = src.Row()
			})
			if allocs != 0 {
				t.Errorf("%v allocations per row", allocs)
			}
		})
	}
}

// TestRowKinds: every column keeps one kind (or NULL) over a table's rows,
// and the typed row says what Values says.
func TestRowKinds(t *testing.T) {
	cfg := GenConfig{Seed: 5, LoadTime: loadTime, Constants: LoadConstants(5)}
	for _, table := range Tables {
		t.Run(string(table), func(t *testing.T) {
			kinds := make([]Kind, len(Columns[table]))
			src := Generate(cfg, table, 1)
			for src.Next() {
				row := src.Row()
				vals, _ := src.Values()
				for i, v := range row {
					if v.Kind != KindNull && kinds[i] != KindNull && v.Kind != kinds[i] {
						t.Fatalf("%s: kind %d then %d", Columns[table][i], kinds[i], v.Kind)
					}
					if v.Kind != KindNull {
						kinds[i] = v.Kind
					}
					if v.Kind == KindText && string(v.Text) != vals[i] {
						t.Fatalf("%s: text %q, Values %q", Columns[table][i], v.Text, vals[i])
					}
				}
			}
			for i, k := range kinds {
				if k == KindNull {
					t.Errorf("%s: never set", Columns[table][i])
				}
			}
		})
	}
}

// BenchmarkGenerateRow generates one row per op of each table, typed (Row,
// what PostgreSQL's COPY encodes) and as Values (the other engines):
//
//	go test -run '^$' -bench GenerateRow -benchmem ./tpcc
func BenchmarkGenerateRow(b *testing.B) {
	cfg := GenConfig{Seed: 1, LoadTime: loadTime, Constants: LoadConstants(1)}
	for _, table := range Tables {
		for _, typed := range []bool{true, false} {
			name := string(table) + "/values"
			if typed {
				name = string(table) + "/row"
			}
			b.Run(name, func(b *testing.B) {
				src := Generate(cfg, table, 1)
				for b.Loop() {
					if !src.Next() {
						src = Generate(cfg, table, 1)
						src.Next()
					}
					if typed {
						_ = src.Row()
					} else {
						_, _ = src.Values()
					}
				}
			})
		}
	}
}
