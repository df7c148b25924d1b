package script

import "strings"

// piece is one part of a script as psql's scanner splits it for pgbench:
// an SQL command (up to and including its semicolon, or up to a
// backslash or the end) or a backslash command (to the end of its line).
type piece struct {
	meta     bool
	text     string // SQL text, or the backslash command's line after the backslash
	start    int    // byte offset of text in the source
	combined bool   // the SQL holds \; (several statements in one)
}

// split cuts src into pieces. SQL ends at a semicolon outside quotes,
// comments and parentheses; a backslash outside quotes starts a
// meta-command, except \; and \: which put the character in the SQL.
func split(src string) []piece {
	var out []piece
	var sql strings.Builder
	sqlStart, combined := 0, false
	flush := func() {
		if sql.Len() > 0 {
			out = append(out, piece{text: sql.String(), start: sqlStart, combined: combined})
		}
		sql.Reset()
		combined = false
	}
	depth := 0
	for i := 0; i < len(src); {
		if sql.Len() == 0 {
			sqlStart = i
		}
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src) && (src[i+1] == ';' || src[i+1] == ':'):
			combined = combined || src[i+1] == ';'
			sql.WriteByte(src[i+1])
			i += 2
		case c == '\\':
			flush()
			end := metaEnd(src, i+1)
			out = append(out, piece{meta: true, text: src[i+1 : end], start: i + 1})
			i = end
		case c == ';' && depth == 0:
			sql.WriteByte(c)
			i++
			flush()
		default:
			n := skipToken(src, i, &depth)
			sql.WriteString(src[i : i+n])
			i += n
		}
	}
	flush()
	return out
}

// metaEnd is the offset of the newline ending the backslash command that
// starts at i (a backslash before the newline continues it).
func metaEnd(src string, i int) int {
	for i < len(src) {
		switch {
		case src[i] == '\n':
			return i
		case src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
		case src[i] == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
		default:
			i++
		}
	}
	return i
}

// skipToken returns the length of the SQL token at src[i:] that cannot
// hold a command end: a quoted string or identifier, a dollar-quoted
// string, a comment, or else one byte (parentheses counted in depth).
func skipToken(src string, i int, depth *int) int {
	c := src[i]
	rest := src[i:]
	switch {
	case c == '\'':
		escapes := i > 0 && (src[i-1] == 'E' || src[i-1] == 'e') && (i < 2 || !identChar(src[i-2]))
		return quoted(rest, '\'', escapes)
	case c == '"':
		return quoted(rest, '"', false)
	case strings.HasPrefix(rest, "--"):
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			return j
		}
		return len(rest)
	case strings.HasPrefix(rest, "/*"):
		return blockComment(rest)
	case c == '$' && (i == 0 || !identChar(src[i-1])):
		if tag, ok := dollarTag(rest); ok {
			if j := strings.Index(rest[len(tag):], tag); j >= 0 {
				return len(tag) + j + len(tag)
			}
			return len(rest)
		}
	case c == '(':
		*depth++
	case c == ')' && *depth > 0:
		*depth--
	}
	return 1
}

func identChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// quoted is the length of the quoted token at s (q doubled inside is
// itself; with escapes a backslash escapes the next byte).
func quoted(s string, q byte, escapes bool) int {
	for j := 1; j < len(s); j++ {
		switch {
		case escapes && s[j] == '\\':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

// blockComment is the length of the (nested) /* */ comment at s.
func blockComment(s string) int {
	level := 0
	for j := 0; j+1 < len(s); j++ {
		switch {
		case s[j] == '/' && s[j+1] == '*':
			level++
			j++
		case s[j] == '*' && s[j+1] == '/':
			level--
			j++
			if level == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// dollarTag is the $tag$ that opens a dollar-quoted string at s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1], true
		case c >= '0' && c <= '9' && j == 1:
			return "", false
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80):
			return "", false
		}
	}
	return "", false
}
