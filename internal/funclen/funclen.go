// Package funclen measures the functions of Go source files, so that a test
// can keep the run path's functions short enough to read at once.
package funclen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// Func is one function or method and its length in lines, from the func
// keyword to the closing brace.
type Func struct {
	File  string // as globbed
	Name  string // Recv.Name for methods
	Lines int
}

func (f Func) String() string { return fmt.Sprintf("%s %s: %d lines", f.File, f.Name, f.Lines) }

// Over returns the functions of the non-test Go files matching the glob
// patterns that are longer than limit lines.
func Over(limit int, patterns ...string) ([]Func, error) {
	var out []Func
	fset := token.NewFileSet()
	for _, pat := range patterns {
		files, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("glob %s: %w", pat, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no files", pat)
		}
		for _, path := range files {
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
					n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
					if n > limit {
						out = append(out, Func{File: path, Name: name(fn), Lines: n})
					}
				}
			}
		}
	}
	return out, nil
}

// name is fn's name, with its receiver's type for a method.
func name(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
