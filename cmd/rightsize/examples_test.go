package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The CI examples are valid YAML and every rightsize command line in their
// scripts names a command that exists, with flags that command defines and
// values they accept, and the arguments it takes.
func TestCIExamples(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string // commands the example must show
	}{
		{"github-actions.yml", []string{"build", "ab --max-regression", "compare", "report"}},
		{"gitlab-ci.yml", []string{"build", "ab --max-regression", "compare", "report"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "examples", "ci", c.file))
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s is not valid YAML: %v", c.file, err)
			}
			scripts, env := []string{}, map[string]string{}
			collectScripts(doc, &scripts, env)
			seen := map[string]bool{}
			for _, s := range scripts {
				for _, line := range scriptLines(s) {
					for _, argv := range rightsizeCommands(expandVars(line, env)) {
						name, err := checkCommandLine(argv)
						if err != nil {
							t.Errorf("%s: rightsize %s: %v", c.file, strings.Join(argv, " "), err)
						}
						seen[name] = true
						if name == "ab" && hasFlag(argv, "--max-regression") && hasFlag(argv, "--junit") {
							seen["ab --max-regression"] = true
						}
					}
				}
			}
			for _, w := range c.want {
				if !seen[w] {
					t.Errorf("%s shows no rightsize %s (seen %v)", c.file, w, seen)
				}
			}
			if strings.Contains(string(b), "postgres:secret") || regexp.MustCompile(`postgres://[^@\s/]+:[^@\s/]+@`).Match(b) {
				t.Errorf("%s writes a password into a URL", c.file)
			}
		})
	}
}

// hasFlag reports whether argv gives flag.
func hasFlag(argv []string, flag string) bool {
	for _, a := range argv {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// collectScripts gathers the shell scripts of a CI file (GitHub's run,
// GitLab's script, before_script and after_script) and its variables
// (env, variables) wherever they are.
func collectScripts(n any, scripts *[]string, env map[string]string) {
	switch v := n.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "run", "script", "before_script", "after_script":
				switch s := x.(type) {
				case string:
					*scripts = append(*scripts, s)
				case []any:
					for _, e := range s {
						if str, ok := e.(string); ok {
							*scripts = append(*scripts, str)
						}
					}
				}
			case "env", "variables":
				if m, ok := x.(map[string]any); ok {
					for name, val := range m {
						if s, ok := val.(string); ok {
							env[name] = s
						}
					}
				}
			}
			collectScripts(x, scripts, env)
		}
	case []any:
		for _, x := range v {
			collectScripts(x, scripts, env)
		}
	}
}

// scriptLines splits a script into command lines, joining backslash
// continuations.
func scriptLines(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\\\n", " "), "\n")
}

var ghExpr = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// expandVars replaces $NAME and ${NAME} of the CI file's own variables
// (so flags kept in a variable are checked too); others stay as they are.
func expandVars(line string, env map[string]string) string {
	line = ghExpr.ReplaceAllString(line, "EXPR")
	return os.Expand(line, func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return "$" + name
	})
}

// rightsizeCommands returns the arguments of each rightsize command in a
// shell line (commands split at ; && || |, redirections left out).
func rightsizeCommands(line string) [][]string {
	var out [][]string
	for _, seg := range shellSegments(line) {
		for len(seg) > 0 && strings.Contains(seg[0], "=") && !strings.HasPrefix(seg[0], "-") {
			seg = seg[1:] // NAME=value before the command
		}
		if len(seg) > 0 && filepath.Base(seg[0]) == "rightsize" {
			out = append(out, seg[1:])
		}
	}
	return out
}

// shellSegments tokenizes a shell line: words with single and double
// quotes removed, a new segment at each ; & |, and the word after a
// redirection (>, >>) dropped.
func shellSegments(line string) [][]string {
	var segs [][]string
	var cur []string
	var word strings.Builder
	inWord, quote, redirect := false, rune(0), false
	end := func() {
		if inWord {
			if !redirect {
				cur = append(cur, word.String())
			}
			redirect = false
		}
		word.Reset()
		inWord = false
	}
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			end()
		case r == ';' || r == '&' || r == '|':
			end()
			if len(cur) > 0 {
				segs = append(segs, cur)
			}
			cur = nil
		case r == '>':
			end()
			redirect = true
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	end()
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

// checkCommandLine finds the command argv names in rightsize's command
// tree, parses its flags with that command's own flag set and checks its
// arguments with its own rule. It returns the command's path below the
// root ("run", "results list").
func checkCommandLine(argv []string) (string, error) {
	root := newRootCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	c, rest, err := root.Find(argv)
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
	if c == root {
		name = ""
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		return name, err
	}
	if c.Args != nil {
		return name, c.Args(c, c.Flags().Args())
	}
	return name, nil
}
