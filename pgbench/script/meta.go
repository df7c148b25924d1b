package script

import (
	"errors"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/pgbench/expr"
)

// word is one blank-separated word of a backslash command and its offset.
type word struct {
	text string
	off  int
}

// words splits a backslash command's line (from offset base in the
// source) into words; a backslash-newline is a blank.
func words(line string, base int) []word {
	var out []word
	i := 0
	for i < len(line) {
		for i < len(line) && isBlank(line, i) {
			i += blankLen(line, i)
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && !isBlank(line, j) {
			j++
		}
		out = append(out, word{text: line[i:j], off: base + i})
		i = j
	}
	return out
}

func isBlank(s string, i int) bool { return blankLen(s, i) > 0 }

func blankLen(s string, i int) int {
	switch {
	case strings.IndexByte(" \t\r\f\v\n", s[i]) >= 0:
		return 1
	case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n':
		return 2
	case s[i] == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
		return 3
	}
	return 0
}

var refused = map[string]string{
	"shell":    "\\shell is not supported: rightsize runs no shell commands from scripts; compute the value with \\set or in SQL",
	"setshell": "\\setshell is not supported: rightsize runs no shell commands from scripts; compute the value with \\set or in SQL with \\gset",
}

// pipelineKinds are the pipeline meta-commands, which take no argument.
var pipelineKinds = map[string]Kind{"startpipeline": StartPipeline, "syncpipeline": SyncPipeline, "endpipeline": EndPipeline}

// meta adds the backslash command pc (or merges \gset and \aset into the
// SQL command before it).
func (p *parseState) meta(pc piece) error {
	ws := words(pc.text, pc.start)
	if len(ws) == 0 {
		return p.errorAt(pc.start-1, "missing command name after the backslash")
	}
	name := strings.ToLower(ws[0].text)
	at := pc.start - 1 // the backslash
	line, col := position(p.src, at)
	c := Command{Line: line, Col: col, Text: "\\" + firstLine(pc.text)}
	if msg, ok := refused[name]; ok {
		return p.errorAt(at, "%s", msg)
	}
	switch name {
	case "set":
		return p.set(c, pc, ws)
	case "if", "elif":
		c.Kind = If
		if name == "elif" {
			c.Kind = Elif
		}
		if len(ws) < 2 {
			return p.errorAt(at, "missing condition in \\%s", name)
		}
		return p.withExpr(c, pc, ws[1].off)
	case "else", "endif", "startpipeline", "syncpipeline", "endpipeline":
		c.Kind = Else
		if name == "endif" {
			c.Kind = Endif
		} else if k, ok := pipelineKinds[name]; ok {
			c.Kind = k
		}
		if len(ws) > 1 {
			return p.errorAt(ws[1].off, "unexpected argument to \\%s", name)
		}
		p.cmds = append(p.cmds, c)
		return nil
	case "sleep":
		return p.sleep(c, ws)
	case "gset", "aset":
		return p.store(name, at, ws)
	}
	return p.errorAt(at, "invalid command \\%s", ws[0].text)
}

// set parses \set NAME EXPRESSION.
func (p *parseState) set(c Command, pc piece, ws []word) error {
	c.Kind = Set
	if len(ws) < 3 {
		return p.errorAt(pc.start-1, "missing argument: \\set takes a variable name and an expression")
	}
	if !ValidName(ws[1].text) {
		return p.errorAt(ws[1].off, "invalid variable name %q", ws[1].text)
	}
	c.Var = ws[1].text
	return p.withExpr(c, pc, ws[2].off)
}

// withExpr parses the expression from offset from to the end of the
// command's line, and adds the command.
func (p *parseState) withExpr(c Command, pc piece, from int) error {
	src := p.src[from : pc.start+len(pc.text)]
	e, err := expr.Parse(src)
	if err != nil {
		var ee *expr.Error
		if errors.As(err, &ee) {
			return p.errorAt(from+ee.Pos, "%s in expression %q", ee.Msg, strings.TrimSpace(src))
		}
		return p.errorAt(from, "%v", err)
	}
	c.Expr = e
	e.Variables(func(name string, pos int) {
		line, col := position(p.src, from+pos)
		c.Reads = append(c.Reads, Read{Name: name, Line: line, Col: col})
	})
	p.cmds = append(p.cmds, c)
	return nil
}

// sleep parses \sleep N [us|ms|s], \sleep Nunit or \sleep :var [unit].
func (p *parseState) sleep(c Command, ws []word) error {
	c.Kind = Sleep
	if len(ws) < 2 {
		return p.errorAt(ws[0].off-1, "missing argument: \\sleep takes a duration")
	}
	if len(ws) > 3 {
		return p.errorAt(ws[3].off, "too many arguments to \\sleep")
	}
	arg, unit, unitOff := ws[1].text, "s", 0
	if len(ws) == 3 {
		unit, unitOff = ws[2].text, ws[2].off
	}
	if strings.HasPrefix(arg, ":") {
		c.SleepVar = arg[1:]
		line, col := position(p.src, ws[1].off)
		c.Reads = append(c.Reads, Read{Name: c.SleepVar, Line: line, Col: col})
	} else {
		digits := numberLen(arg)
		n, err := strconv.ParseInt(arg[:digits], 10, 64)
		if err != nil {
			return p.errorAt(ws[1].off, "invalid sleep time %q: it must be an integer", arg)
		}
		if digits < len(arg) {
			if len(ws) == 3 {
				return p.errorAt(ws[1].off, "invalid sleep time %q: it must be an integer", arg)
			}
			unit, unitOff = arg[digits:], ws[1].off+digits
		}
		c.SleepN = n
	}
	switch strings.ToLower(unit) {
	case "us":
		c.SleepUnit = 1
	case "ms":
		c.SleepUnit = 1000
	case "s":
		c.SleepUnit = 1000000
	default:
		return p.errorAt(unitOff, "unrecognized time unit %q: it must be us, ms or s", unit)
	}
	p.cmds = append(p.cmds, c)
	return nil
}

// store merges \gset or \aset [PREFIX] into the SQL command before it.
func (p *parseState) store(name string, at int, ws []word) error {
	if len(ws) > 2 {
		return p.errorAt(ws[2].off, "too many arguments to \\%s: it takes an optional prefix", name)
	}
	n := len(p.cmds)
	if n == 0 || p.cmds[n-1].Kind != SQL || p.cmds[n-1].Store != NoStore {
		return p.errorAt(at, "\\%s must follow an SQL command", name)
	}
	c := &p.cmds[n-1]
	c.Store = Gset
	if name == "aset" {
		c.Store = Aset
	}
	if len(ws) == 2 {
		c.Prefix = ws[1].text
	}
	return nil
}

// conditionals checks the nesting of \if, \elif, \else and \endif and
// links each branch to the next one and to its \endif.
func (p *parseState) conditionals() error {
	var open []int // the \if or last branch of each open conditional
	var starts []int
	for i := range p.cmds {
		c := &p.cmds[i]
		switch c.Kind {
		case If:
			open, starts = append(open, i), append(starts, i)
		case Elif, Else:
			what := map[Kind]string{Elif: "\\elif", Else: "\\else"}[c.Kind]
			if len(open) == 0 {
				return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: what + " without matching \\if"}
			}
			if last := open[len(open)-1]; p.cmds[last].Kind == Else {
				return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: what + " after \\else"}
			}
			p.cmds[open[len(open)-1]].Next = i
			open[len(open)-1] = i
		case Endif:
			if len(open) == 0 {
				return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: "\\endif without matching \\if"}
			}
			p.cmds[open[len(open)-1]].Next = i
			for j := starts[len(starts)-1]; j < i; j++ {
				if k := p.cmds[j].Kind; (k == If || k == Elif || k == Else) && p.cmds[j].End == 0 {
					p.cmds[j].End = i
				}
			}
			open, starts = open[:len(open)-1], starts[:len(starts)-1]
		}
	}
	if len(open) > 0 {
		c := p.cmds[starts[len(starts)-1]]
		return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: "\\if without matching \\endif"}
	}
	return nil
}

// numberLen is the length of the optional sign and the digits that
// start s.
func numberLen(s string) int {
	n := 0
	if n < len(s) && (s[0] == '+' || s[0] == '-') {
		n++
	}
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// pipelines checks the script's pipelines in the order its commands are
// written, as pgbench finds them running straight through: each
// \startpipeline ended by an \endpipeline before another starts and
// before the script ends, \syncpipeline only inside one, and no \gset or
// \aset inside one (its row is not read until \endpipeline). A pipeline
// across \if branches is checked as the client runs it.
func (p *parseState) pipelines() error {
	open := -1 // the \startpipeline in effect
	for i := range p.cmds {
		c := &p.cmds[i]
		var msg string
		switch {
		case c.Kind == StartPipeline && open >= 0:
			msg = "\\startpipeline: already in a pipeline (the one started at line " + strconv.Itoa(p.cmds[open].Line) + "); end it with \\endpipeline first"
		case (c.Kind == SyncPipeline || c.Kind == EndPipeline) && open < 0:
			msg = c.Text + ": not in a pipeline; start one with \\startpipeline"
		case c.Kind == SQL && c.Store != NoStore && open >= 0:
			msg = "\\gset and \\aset cannot be used in a pipeline: the row is read only at \\endpipeline; move the query out of the pipeline"
		}
		if msg != "" {
			return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: msg}
		}
		switch c.Kind {
		case StartPipeline:
			open = i
		case EndPipeline:
			open = -1
		}
	}
	if open >= 0 {
		c := p.cmds[open]
		return &Error{File: p.name, Line: c.Line, Col: c.Col, Msg: "\\startpipeline is never ended: end the pipeline with \\endpipeline before the script ends"}
	}
	return nil
}
