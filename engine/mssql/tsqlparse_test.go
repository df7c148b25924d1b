package mssql

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allSQL is every SQL text the engine sends, by name.
func allSQL() map[string]string {
	m := statementTexts(false)
	for i, s := range schemaStatements() {
		m["schema/"+itoa(i)+" "+firstLine(s)] = s
	}
	for i, s := range procedureStatements() {
		m["procedures/"+itoa(i)+" "+firstLine(s)] = s
	}
	for i, s := range analyzeStatements() {
		m["analyze/"+itoa(i)] = s
	}
	for _, ix := range secondaryIndexes {
		m["index/"+ix.name] = ix.sql
	}
	for id, s := range checkOverrides {
		m["check/"+id] = s
	}
	m["create_database"] = sqlCreateDatabase
	m["settings/server"] = sqlServerSettings
	m["settings/database"] = sqlDatabaseSettings
	m["meta/write"] = sqlWriteMeta
	m["meta/read"] = sqlReadMeta
	m["table_size"] = sqlTableSize
	m["counters/perf"] = sqlPerfCounters
	m["counters/files"] = sqlFileStats
	return m
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// validateScript parses each statement of a JSON object {name: sql} with
// every T-SQL parser it can import: antlr-tsql (the ANTLR grammars-v4
// T-SQL grammar of 2019, strict: any syntax error raises; slow in pure
// Python, hence a process per core) and sqlglot's tsql dialect (which takes
// procedural batches only as opaque commands, so it checks the plain
// statements). Constructs a parser's grammar lacks are listed in gaps and
// reported as skipped. It prints
// {"tools": [...], "errors": {"tool: name": "message"}, "skipped": {...}}.
const validateScript = `
import json, sys, multiprocessing

# Valid T-SQL that a parser's grammar does not know.
ANTLR_GAPS = {
    "UPDATE STATISTICS": "UPDATE STATISTICS is missing from the 2019 grammar",
    "CREATE TYPE": "CREATE TYPE ... AS TABLE (SQL Server 2008) is missing from the 2019 grammar",
}
SQLGLOT_GAPS = {
    "new_order/write/": "sqlglot rejects a schema-qualified OUTPUT ... INTO target (dbo.order_line)",
}
SQLGLOT_NAMES = ("new_order/", "payment/", "order_status/", "delivery/oldest", "stock_level/", "by_name",
                 "check/", "index/", "meta/read", "table_size", "counters/", "settings/")

def antlr_check(item):
    name, text = item
    from antlr_tsql import ast as tsql_ast
    from antlr_ast.ast import parse as antlr_parse, CaseTransformInputStream
    try:
        antlr_parse(tsql_ast.grammar, text, "tsql_file", strict=True, transform=CaseTransformInputStream.UPPER)
        return name, ""
    except Exception as e:
        return name, str(e) or type(e).__name__

def main():
    stmts = json.load(sys.stdin)
    tools, errors, skipped = [], {}, {}
    try:
        import antlr_tsql.ast
        tools.append("antlr-tsql")
        todo = []
        for name, text in sorted(stmts.items()):
            gap = [why for prefix, why in ANTLR_GAPS.items() if text.lstrip().upper().startswith(prefix)]
            if gap:
                skipped["antlr-tsql: " + name] = gap[0]
            else:
                todo.append((name, text))
        todo.sort(key=lambda item: -len(item[1]))  # the long procedures first
        with multiprocessing.Pool() as pool:
            for name, err in pool.imap_unordered(antlr_check, todo):
                if err:
                    errors["antlr-tsql: " + name] = err
    except ImportError:
        pass
    try:
        import sqlglot
        from sqlglot import exp
        tools.append("sqlglot " + sqlglot.__version__)
        for name, text in sorted(stmts.items()):
            if not name.startswith(SQLGLOT_NAMES):
                continue
            gap = [why for prefix, why in SQLGLOT_GAPS.items() if name.startswith(prefix)]
            if gap:
                skipped["sqlglot: " + name] = gap[0]
                continue
            try:
                for tree in sqlglot.parse(text, read="tsql", error_level=sqlglot.ErrorLevel.RAISE):
                    if isinstance(tree, exp.Command):
                        errors["sqlglot: " + name] = "not understood (parsed as an opaque command)"
            except Exception as e:
                errors["sqlglot: " + name] = str(e)
    except ImportError:
        pass
    print(json.dumps({"tools": tools, "errors": errors, "skipped": skipped}))

if __name__ == "__main__":
    main()
`

// TestTSQLSyntax validates every generated statement with a real T-SQL
// grammar when python3 has one (pip install antlr-tsql, and/or sqlglot);
// it is skipped otherwise.
func TestTSQLSyntax(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: T-SQL syntax not validated")
	}
	in, err := json.Marshal(allSQL())
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		t.Skip("-short: T-SQL syntax validation (about a minute of Python) not run")
	}
	t.Parallel()
	script := filepath.Join(t.TempDir(), "validate_tsql.py")
	if err := os.WriteFile(script, []byte(validateScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 validator: %v\n%s", err, stderr.String())
	}
	var res struct {
		Tools   []string          `json:"tools"`
		Errors  map[string]string `json:"errors"`
		Skipped map[string]string `json:"skipped"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("validator output %q: %v", out, err)
	}
	if len(res.Tools) == 0 {
		t.Skip("no T-SQL parser for python3 (pip install antlr-tsql sqlglot): T-SQL syntax not validated")
	}
	names := make([]string, 0, len(res.Errors))
	for k := range res.Errors {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Errorf("%s: %s", k, strings.TrimSpace(res.Errors[k]))
	}
	skipped := make([]string, 0, len(res.Skipped))
	for k := range res.Skipped {
		skipped = append(skipped, k)
	}
	sort.Strings(skipped)
	for _, k := range skipped {
		t.Logf("skipped %s: %s", k, res.Skipped[k])
	}
	t.Logf("%d statements parsed with %s", len(allSQL()), strings.Join(res.Tools, " and "))
}
