package script

import "slices"

// MetaCommands are the meta-commands every engine that runs scripts runs,
// without their backslash.
var MetaCommands = []string{"set", "sleep", "gset", "aset", "if", "elif", "else", "endif"}

// PipelineCommands are the pipeline meta-commands, which only an engine
// with a pipelined protocol runs (PostgreSQL's extended query protocol).
var PipelineCommands = []string{"startpipeline", "syncpipeline", "endpipeline"}

// AllMetaCommands are every meta-command Parse accepts: what PostgreSQL
// declares.
var AllMetaCommands = append(slices.Clip(MetaCommands), PipelineCommands...)

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
	case StartPipeline:
		return "startpipeline"
	case SyncPipeline:
		return "syncpipeline"
	case EndPipeline:
		return "endpipeline"
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
