// Package script parses pgbench scripts as PostgreSQL 17's pgbench reads
// them: SQL commands with :variables (turned into $n bind parameters, to be
// prepared once per connection as pgbench -M prepared does), and the
// meta-commands \set, \sleep, \gset, \aset, \if, \elif, \else and \endif.
// \shell, \setshell and pipelines are refused. Every error names
// FILE:LINE:COLUMN. It also holds pgbench's built-in scripts, the
// FILE@WEIGHT syntax and NAME=VALUE definitions.
package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/pgbench/expr"
)

// Kind is what a command does.
type Kind uint8

// The kinds of commands.
const (
	SQL Kind = iota
	Set
	Sleep
	If
	Elif
	Else
	Endif
	// StartPipeline, SyncPipeline and EndPipeline are \startpipeline,
	// \syncpipeline and \endpipeline: the SQL commands between them are
	// sent without waiting for their results, which are read at
	// \endpipeline (pipeline mode, the extended query protocol's).
	StartPipeline
	SyncPipeline
	EndPipeline
)

// Store says where an SQL command's result row goes.
type Store uint8

// The result stores.
const (
	NoStore Store = iota
	Gset          // \gset: exactly one row into variables
	Aset          // \aset: the last row, if any, into variables
)

// Command is one command of a script.
type Command struct {
	Kind Kind
	Line int    // where it starts in its file, from 1
	Col  int    // from 1
	Text string // its first line, for reports

	// SQL: the statement with $1..$n for Params, the variables bound to
	// them in order (QSQL: with ? placeholders, for MySQL and SQLite);
	// Pieces: its text around the variables (one more than Params), what
	// pgbench -M simple puts their values between. Store and Prefix say
	// where \gset or \aset put the row.
	SQL    string
	QSQL   string
	Params []string
	Pieces []string
	Store  Store
	Prefix string

	// Set: Var := Expr. If and Elif: Expr is the condition.
	Var  string
	Expr *expr.Expr

	// Sleep: SleepVar (a variable) or SleepN, times SleepUnit microseconds.
	SleepVar  string
	SleepN    int64
	SleepUnit int64

	// If, Elif, Else: Next is the index of the next branch or the
	// \endif; End is the index of the \endif.
	Next, End int

	// Reads are the variables Expr or SleepVar read, where they are
	// written: pgbench aborts a client that evaluates one never set.
	Reads []Read
}

// Read is a variable a meta-command reads, at LINE:COL of its file.
type Read struct {
	Name      string
	Line, Col int
}

// Script is a parsed script and its weight among the scripts of a run.
type Script struct {
	Name     string
	Weight   int
	Commands []Command
}

// Error is a script error at a place in its file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Parse parses the script src read from file name.
func Parse(name, src string) (*Script, error) {
	p := &parseState{name: name, src: src}
	for _, pc := range split(src) {
		var err error
		if pc.meta {
			err = p.meta(pc)
		} else {
			err = p.sql(pc)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(p.cmds) == 0 {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: "empty command list: the script has no command"}
	}
	if err := p.conditionals(); err != nil {
		return nil, err
	}
	if err := p.pipelines(); err != nil {
		return nil, err
	}
	return &Script{Name: name, Weight: 1, Commands: p.cmds}, nil
}

type parseState struct {
	name string
	src  string
	cmds []Command
}

// errorAt is an Error at byte offset off of the source.
func (p *parseState) errorAt(off int, format string, args ...any) *Error {
	line, col := position(p.src, off)
	return &Error{File: p.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position is the line and column (from 1, in bytes) of offset off.
func position(src string, off int) (int, int) {
	off = min(off, len(src))
	line := 1 + strings.Count(src[:off], "\n")
	start := strings.LastIndexByte(src[:off], '\n') + 1
	return line, off - start + 1
}

// sql adds an SQL command, unless the piece holds only blanks and --
// comments.
func (p *parseState) sql(pc piece) error {
	skip := skipBlanksAndComments(pc.text)
	if skip == len(pc.text) {
		return nil
	}
	off := pc.start + skip
	text := pc.text[skip:]
	if pc.combined {
		return p.errorAt(off, "combined queries (\\;) cannot be prepared: write each statement as its own command")
	}
	pieces, params := splitVars(text)
	if len(params) > 255 {
		return p.errorAt(off, "statement has too many arguments (maximum is 255)")
	}
	line, col := position(p.src, off)
	p.cmds = append(p.cmds, Command{Kind: SQL, Line: line, Col: col, Text: firstLine(text),
		SQL: joinParams(pieces, false), QSQL: joinParams(pieces, true), Params: params, Pieces: pieces})
	return nil
}

func skipBlanksAndComments(s string) int {
	i := 0
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		default:
			return i
		}
	}
	return i
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// splitVars splits sql at each :name, as pgbench's parseQuery and
// assignVariables find them (everywhere in the text, quoted or not; "::"
// is a cast): the text around the variables, one piece more than their
// names, in order.
func splitVars(sql string) (pieces, names []string) {
	var b strings.Builder
	for i := 0; i < len(sql); {
		j := strings.IndexByte(sql[i:], ':')
		if j < 0 {
			b.WriteString(sql[i:])
			break
		}
		j += i
		b.WriteString(sql[i:j])
		n := varNameLen(sql[j+1:])
		if n == 0 {
			k := j
			for k < len(sql) && sql[k] == ':' {
				k++
			}
			b.WriteString(sql[j:k])
			i = k
			continue
		}
		pieces, names = append(pieces, b.String()), append(names, sql[j+1:j+1+n])
		b.Reset()
		i = j + 1 + n
	}
	return append(pieces, b.String()), names
}

// joinParams joins splitVars' pieces with $1, $2, ... between them (the
// statement pgbench -M prepared and extended send), or with qmark ?.
func joinParams(pieces []string, qmark bool) string {
	var b strings.Builder
	for k, p := range pieces {
		if k > 0 {
			if qmark {
				b.WriteByte('?')
			} else {
				b.WriteString("$" + strconv.Itoa(k))
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

// varNameLen is the length of the variable name at the start of s: a
// letter, underscore or non-ASCII byte, then those or digits.
func varNameLen(s string) int {
	if s == "" || !(isLetter(s[0])) {
		return 0
	}
	n := 1
	for n < len(s) && (isLetter(s[n]) || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// ValidName says whether name may name a variable.
func ValidName(name string) bool { return name != "" && varNameLen(name) == len(name) }
