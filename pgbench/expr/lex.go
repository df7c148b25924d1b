package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// tok is a token kind of the expression scanner (exprscan.l).
type tok uint8

const (
	tEOF tok = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, only valid after a unary minus
	tDouble
	tVar
	tFunc
	tNull
	tTrue
	tFalse
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
	tOp // one of the operator or punctuation strings in token.text
)

type token struct {
	kind tok
	text string // the token as written (operators: normalised, "!=" as "<>")
	pos  int    // byte offset in the source
	i    int64
	f    float64
}

// Error is an expression error at byte offset Pos of the expression's text.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return e.Msg }

var keywords = map[string]tok{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEnd,
	"null": tNull, "true": tTrue, "false": tFalse,
}

// operators, longest first so that "<=" wins over "<".
var operators = []string{"<>", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "=", "<", ">", "|", "&", "#", "~", "(", ")", ","}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// lex splits src into tokens. Blanks (and a backslash-newline) separate
// tokens; the expression ends at the end of src.
func lex(src string) ([]token, error) {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n':
			i++
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			continue
		}
		t, n, err := lexOne(src, i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		i += n
	}
	return append(out, token{kind: tEOF, pos: len(src)}), nil
}

// lexOne scans the token at src[i:] and returns it with its length.
func lexOne(src string, i int) (token, int, error) {
	c := src[i]
	switch {
	case c == ':' && i+1 < len(src) && isAlnum(src[i+1]):
		j := i + 1
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
		return token{kind: tVar, text: src[i+1 : j], pos: i}, j - i, nil
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		return lexNumber(src, i)
	case isAlpha(c):
		j := i
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
		word := src[i:j]
		if k, ok := keywords[strings.ToLower(word)]; ok {
			return token{kind: k, text: word, pos: i}, j - i, nil
		}
		return token{kind: tFunc, text: word, pos: i}, j - i, nil
	}
	for _, op := range operators {
		if strings.HasPrefix(src[i:], op) {
			text := op
			if op == "!=" {
				text = "<>"
			}
			return token{kind: tOp, text: text, pos: i}, len(op), nil
		}
	}
	return token{}, 0, &Error{Pos: i, Msg: fmt.Sprintf("unexpected character (%c)", c)}
}

// lexNumber scans an integer ({digit}+) or a double
// ({digit}+(.{digit}*)?([eE][-+]?{digit}+)? or .{digit}+(...)).
func lexNumber(src string, i int) (token, int, error) {
	j := i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	isDouble := false
	if j < len(src) && src[j] == '.' {
		isDouble = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			isDouble, j = true, k
		}
	}
	text := src[i:j]
	if !isDouble {
		if text == "9223372036854775808" {
			return token{kind: tMaxIntPlusOne, text: text, pos: i}, j - i, nil
		}
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return token{}, 0, &Error{Pos: i, Msg: fmt.Sprintf("bigint constant overflow (%s)", text)}
		}
		return token{kind: tInt, text: text, pos: i, i: v}, j - i, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return token{}, 0, &Error{Pos: i, Msg: fmt.Sprintf("double constant overflow (%s)", text)}
	}
	return token{kind: tDouble, text: text, pos: i, f: f}, j - i, nil
}
