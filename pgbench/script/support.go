package script

import "slices"

// MetaCommands are the meta-commands Parse accepts, without their
// backslash: what an engine that runs every one of them declares.
var MetaCommands = []string{"set", "sleep", "gset", "aset", "if", "elif", "else", "endif"}

// metaName is the meta-command command c runs ("" for plain SQL).
func (c *Command) metaName() string {
	switch c.Kind {
	case Set:
		return "set"
	case Sleep:
		return "sleep"
	case If:
		return "if"
	case Elif:
		return "elif"
	case Else:
		return "else"
	case Endif:
		return "endif"
	}
	switch c.Store {
	case Gset:
		return "gset"
	case Aset:
		return "aset"
	}
	return ""
}

// Unsupported is the first command of s that needs a meta-command not in
// meta, as an Error at its place naming the engine (nil: none).
func (s *Script) Unsupported(meta []string, engine string) error {
	for i := range s.Commands {
		c := &s.Commands[i]
		if m := c.metaName(); m != "" && !slices.Contains(meta, m) {
			return &Error{File: s.Name, Line: c.Line, Col: c.Col, Msg: "\\" + m + ": " + engine + " cannot run it"}
		}
	}
	return nil
}
