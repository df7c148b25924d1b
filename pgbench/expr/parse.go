package expr

import (
	"fmt"
	"strings"
)

type nodeKind uint8

const (
	constNode nodeKind = iota
	varNode
	funcNode
)

// Expr is a parsed expression: a constant, a variable, or a function
// (every operator is one, as in pgbench) applied to its arguments.
type Expr struct {
	kind nodeKind
	val  Value
	name string
	pos  int // a variable's byte offset in the source (its colon)
	fn   fn
	args []*Expr
}

// Variables calls f for each variable e reads, in the order written, with
// the byte offset of its colon in the parsed source. The :default_seed a
// hash function or permute takes when given no seed is not written, so
// it is not reported.
func (e *Expr) Variables(f func(name string, pos int)) {
	if e.kind == varNode && e.pos >= 0 {
		f(e.name, e.pos)
	}
	for _, a := range e.args {
		a.Variables(f)
	}
}

// Parse parses one expression. An error is an *Error naming the offset of
// the token where it was found.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.expr(levelOr)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.syntaxError(t)
	}
	return e, nil
}

// Precedence levels, lowest first, as exprparse.y declares them.
const (
	levelOr = iota + 1
	levelAnd
	levelNot
	levelIs
	levelCmp
	levelBit
	levelAdd
	levelMul
	levelUnary
)

var binaryLevel = map[string]int{
	"=": levelCmp, "<>": levelCmp, "<": levelCmp, ">": levelCmp, "<=": levelCmp, ">=": levelCmp,
	"|": levelBit, "#": levelBit, "&": levelBit, "<<": levelBit, ">>": levelBit,
	"+": levelAdd, "-": levelAdd, "*": levelMul, "/": levelMul, "%": levelMul,
}

type parser struct {
	toks []token
	at   int
}

func (p *parser) peek() token { return p.toks[p.at] }
func (p *parser) next() token {
	t := p.toks[p.at]
	if t.kind != tEOF {
		p.at++
	}
	return t
}

func (p *parser) syntaxError(t token) error {
	return &Error{Pos: t.pos, Msg: "syntax error"}
}

// level is the precedence of t as a binary or postfix operator, 0 if it
// is none.
func level(t token) int {
	switch t.kind {
	case tOr:
		return levelOr
	case tAnd:
		return levelAnd
	case tIs, tIsNull, tNotNull:
		return levelIs
	case tOp:
		return binaryLevel[t.text]
	}
	return 0
}

// expr parses an expression whose operators all bind at least as tightly
// as min (precedence climbing over the grammar's %left/%nonassoc levels).
func (p *parser) expr(min int) (*Expr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	lastLevel := 0
	for {
		t := p.peek()
		l := level(t)
		if l == 0 || l < min {
			return left, nil
		}
		if l == levelCmp && l == lastLevel {
			return nil, p.syntaxError(t) // %nonassoc: a < b < c (IS, a postfix, chains)
		}
		p.next()
		if l == levelIs {
			if left, err = p.isSuffix(t, left); err != nil {
				return nil, err
			}
		} else {
			right, err := p.expr(l + 1)
			if err != nil {
				return nil, err
			}
			left = binary(t, left, right)
		}
		lastLevel = l
	}
}

// binary makes the function node of a binary operator; > and >= are < and
// <= with their operands swapped, as in pgbench.
func binary(t token, l, r *Expr) *Expr {
	switch t.kind {
	case tAnd:
		return call(fAnd, l, r)
	case tOr:
		return call(fOr, l, r)
	}
	switch t.text {
	case ">":
		return call(fLt, r, l)
	case ">=":
		return call(fLe, r, l)
	}
	return call(operatorFn[t.text], l, r)
}

var operatorFn = map[string]fn{
	"+": fAdd, "-": fSub, "*": fMul, "/": fDiv, "%": fMod, "=": fEq, "<>": fNe, "<": fLt, "<=": fLe,
	"&": fBitAnd, "|": fBitOr, "#": fBitXor, "<<": fLShift, ">>": fRShift,
}

func call(f fn, args ...*Expr) *Expr { return &Expr{kind: funcNode, fn: f, args: args} }
func constant(v Value) *Expr         { return &Expr{kind: constNode, val: v} }

// isSuffix parses what follows IS (NULL, NOT NULL, TRUE, FALSE, NOT TRUE,
// NOT FALSE), or applies ISNULL / NOTNULL.
func (p *parser) isSuffix(t token, left *Expr) (*Expr, error) {
	switch t.kind {
	case tIsNull:
		return call(fIs, left, constant(NullValue())), nil
	case tNotNull:
		return call(fNot, call(fIs, left, constant(NullValue()))), nil
	}
	negate := false
	if p.peek().kind == tNot {
		p.next()
		negate = true
	}
	var c Value
	switch n := p.next(); n.kind {
	case tNull:
		c = NullValue()
	case tTrue:
		c = BoolValue(true)
	case tFalse:
		c = BoolValue(false)
	default:
		return nil, p.syntaxError(n)
	}
	e := call(fIs, left, constant(c))
	if negate {
		e = call(fNot, e)
	}
	return e, nil
}

// unary parses a prefix operator and its operand, or a primary.
func (p *parser) unary() (*Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tNot:
		p.next()
		e, err := p.expr(levelNot)
		if err != nil {
			return nil, err
		}
		return call(fNot, e), nil
	case t.kind == tOp && (t.text == "-" || t.text == "+"):
		p.next()
		if t.text == "-" && p.peek().kind == tMaxIntPlusOne {
			p.next()
			return constant(IntValue(-1 << 63)), nil
		}
		e, err := p.expr(levelUnary)
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return e, nil
		}
		return call(fSub, constant(IntValue(0)), e), nil
	case t.kind == tOp && t.text == "~":
		p.next()
		e, err := p.expr(levelBit + 1)
		if err != nil {
			return nil, err
		}
		return call(fBitXor, constant(IntValue(-1)), e), nil
	}
	return p.primary()
}

// primary parses a constant, a variable, a parenthesised expression, a
// function call or a CASE.
func (p *parser) primary() (*Expr, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return constant(IntValue(t.i)), nil
	case tDouble:
		return constant(DoubleValue(t.f)), nil
	case tNull:
		return constant(NullValue()), nil
	case tTrue, tFalse:
		return constant(BoolValue(t.kind == tTrue)), nil
	case tVar:
		return &Expr{kind: varNode, name: t.text, pos: t.pos}, nil
	case tFunc:
		return p.function(t)
	case tCase:
		return p.caseExpr()
	case tOp:
		if t.text == "(" {
			e, err := p.expr(levelOr)
			if err != nil {
				return nil, err
			}
			if c := p.next(); c.kind != tOp || c.text != ")" {
				return nil, p.syntaxError(c)
			}
			return e, nil
		}
	}
	return nil, p.syntaxError(t)
}

// function parses NAME(args) and checks the function and its argument
// count; hash functions and permute get :default_seed when no seed is given.
func (p *parser) function(name token) (*Expr, error) {
	f, ok := functions[strings.ToLower(name.text)]
	if !ok {
		return nil, &Error{Pos: name.pos, Msg: fmt.Sprintf("unexpected function name (%s)", name.text)}
	}
	if o := p.next(); o.kind != tOp || o.text != "(" {
		return nil, p.syntaxError(o)
	}
	var args []*Expr
	if c := p.peek(); c.kind == tOp && c.text == ")" {
		p.next()
	} else {
		for {
			a, err := p.expr(levelOr)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			c := p.next()
			if c.kind == tOp && c.text == ")" {
				break
			}
			if c.kind != tOp || c.text != "," {
				return nil, p.syntaxError(c)
			}
		}
	}
	args, err := checkArgs(f, args)
	if err != nil {
		return nil, &Error{Pos: name.pos, Msg: err.Error()}
	}
	return call(f.fn, args...), nil
}

// caseExpr parses WHEN c THEN v ... [ELSE e] END after CASE; the node's
// arguments are c1, v1, c2, v2, ..., else (NULL when absent).
func (p *parser) caseExpr() (*Expr, error) {
	var args []*Expr
	for p.peek().kind == tWhen {
		p.next()
		c, err := p.expr(levelOr)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tThen {
			return nil, p.syntaxError(t)
		}
		v, err := p.expr(levelOr)
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
	if len(args) == 0 {
		return nil, p.syntaxError(p.peek())
	}
	elseExpr := constant(NullValue())
	if p.peek().kind == tElse {
		p.next()
		e, err := p.expr(levelOr)
		if err != nil {
			return nil, err
		}
		elseExpr = e
	}
	if t := p.next(); t.kind != tEnd {
		return nil, p.syntaxError(t)
	}
	return call(fCase, append(args, elseExpr)...), nil
}
