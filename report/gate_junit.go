package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The JUnit XML that CI systems (GitHub Actions test reporters, GitLab's
// junit reports, Jenkins) show: testsuites > testsuite > testcase, a
// <failure> in a failing case, <skipped> in one not run.
type (
	junitSuites struct {
		XMLName xml.Name `xml:"testsuites"`
		junitCounts
		Suites []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		junitCounts
		Cases []junitCase `xml:"testcase"`
	}
	// junitCounts are the attributes of both testsuites and testsuite.
	junitCounts struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// junitClass is the classname of every case: CI systems group by it.
const junitClass = "rightsize.gate"

// WriteJUnit writes the verdicts as JUnit XML: one test case per users
// step and one for the whole comparison, failing where the gate failed
// (without thresholds nothing fails; the verdicts are in system-out).
func (v *Verdicts) WriteJUnit(w io.Writer) error {
	suite := junitSuite{junitCounts: junitCounts{Name: fmt.Sprintf("%s against %s", v.B.Label, v.A.Label)}}
	var total float64
	for _, s := range v.Steps {
		c := junitCase{Name: strconv.Itoa(s.Users) + " users", Classname: junitClass, Time: junitTime(s.Seconds)}
		total += s.Seconds
		if len(s.Figures) == 0 {
			c.Skipped = &junitSkipped{Message: s.Verdict + ": not compared"}
		} else {
			c.SystemOut, c.Failure = figureCase(strconv.Itoa(s.Users)+" users", s.Figures)
		}
		suite.add(c)
	}
	whole := junitCase{Name: "overall: " + overallScope(v.Overall), Classname: junitClass, Time: junitTime(total)}
	whole.SystemOut, _ = figureCase(overallScope(v.Overall), v.Overall.Figures)
	if v.Gate != nil {
		whole.SystemOut += v.Gate.Verdict + "\n"
		if !v.Gate.Passed {
			whole.Failure = &junitFailure{Message: v.Gate.Verdict, Type: "regression", Text: strings.Join(v.Gate.Failures, "\n")}
		}
	}
	suite.add(whole)
	suite.Time = junitTime(total)
	doc := junitSuites{junitCounts: suite.junitCounts, Suites: []junitSuite{suite}}
	doc.Name = "rightsize compare"
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

// figureCase is a case's output (one line per figure) and its failure
// when a figure regressed.
func figureCase(scope string, fs []FigureVerdict) (out string, fail *junitFailure) {
	var failed []string
	for _, f := range fs {
		l := FigureLine(scope, f)
		out += l + "\n"
		if f.Regression {
			failed = append(failed, l)
		}
	}
	if len(failed) > 0 {
		fail = &junitFailure{Message: failed[0], Type: "regression", Text: strings.Join(failed, "\n")}
	}
	return out, fail
}

func junitTime(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
