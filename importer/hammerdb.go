// Package importer brings results measured by other tools into the results
// store, so that reports and comparisons can put them next to rightsize's
// own runs.
//
// HammerDB: the output of timed TPROC-C (TPC-C) runs, as hammerdb.log, the
// CLI's console output or the web service's job output: the monitor
// virtual user's "TEST RESULT : System achieved N NOPM from M <DB> TPM"
// lines (and the older "M <DB> TPM at N NOPM"), the virtual-user count of
// each test ("N Active Virtual Users configured", or the users created),
// ramp-up and test durations, the autopilot's sequence of tests, the
// settings changed with diset, and the xtprof time profile
// (hdbxtprofile.log, or the same report printed in the log): the summary
// of all virtual users per stored procedure, with CALLS, MIN, AVG, MAX,
// TOTAL, P99, P95, P50, SD and RATIO.
package importer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/store"
	"github.com/rightsize/rightsize/tpcc"
)

// HammerDBTest is one timed test found in HammerDB output.
type HammerDBTest struct {
	// Line is the line of the TEST RESULT.
	Line int
	// Users is the number of active virtual users (the monitor excluded).
	Users int
	// NOPM and TPM are HammerDB's figures; DB names the database as
	// HammerDB printed it ("PostgreSQL", "SQL Server").
	NOPM, TPM float64
	DB        string
	// Rampup and Duration are the test's ramp-up and timed period (0 when
	// the log does not say).
	Rampup, Duration time.Duration
	// Start, MeasureStart and MeasureEnd come from the log's timestamps
	// (zero when it has none).
	Start, MeasureStart, MeasureEnd time.Time
	// Txn holds the xtprof summary of the test, when there is one.
	Txn []store.TxnSummary
}

// HammerDBProfile is one xtprof summary of all virtual users.
type HammerDBProfile struct {
	// Line is the line of the summary header.
	Line int
	// Users is the number of virtual users summarised (0 when the header
	// does not say).
	Users int
	// Txn has one summary per stored procedure, in the report's order.
	Txn []store.TxnSummary
}

// HammerDBLog is what a HammerDB output file holds.
type HammerDBLog struct {
	// Name is the file name, for messages.
	Name string
	// Tests are the timed tests, in order.
	Tests []HammerDBTest
	// Profiles are the xtprof summaries that could not be matched to a
	// test of this file (a separate hdbxtprofile.log).
	Profiles []HammerDBProfile
	// Version is HammerDB's version, DBVersion the database's, when printed.
	Version, DBVersion string
	// Settings are the settings changed with diset ("tpcc.pg_count_ware").
	Settings map[string]string
	// Started is the log's first timestamp (zero when it has none).
	Started time.Time
}

// xtprof procedure names and the transaction types they time.
var procTypes = map[string]string{
	"NEWORD":   tpcc.NewOrderTxn.String(),
	"PAYMENT":  "payment",
	"DELIVERY": "delivery",
	"SLEV":     "stock_level",
	"OSTAT":    "order_status",
}

// Engines by the database name in HammerDB's TEST RESULT.
var engineNames = map[string]string{
	"postgresql": "postgres", "mysql": "mysql", "mariadb": "mariadb", "sql server": "mssql", "oracle": "oracle",
	"db2": "db2", "timesten": "timesten", "redis": "redis", "trafodion": "trafodion",
}

var (
	reVuser      = regexp.MustCompile(`^Vuser (\d+):(.*)$`)
	reResultNew  = regexp.MustCompile(`^TEST RESULT : System achieved (\d+(?:\.\d+)?) NOPM from (\d+(?:\.\d+)?) (.+?) TPM\s*$`)
	reResultOld  = regexp.MustCompile(`^TEST RESULT : System achieved (\d+(?:\.\d+)?) (.+?) TPM at (\d+(?:\.\d+)?) NOPM\s*$`)
	reActive     = regexp.MustCompile(`^(\d+) Active Virtual Users configured`)
	reCreated    = regexp.MustCompile(`^(\d+) Virtual Users Created( with Monitor VU)?`)
	reRampup     = regexp.MustCompile(`^Beginning rampup time of (\d+(?:\.\d+)?) minutes?`)
	reTimed      = regexp.MustCompile(`^Timing test period of (\d+(?:\.\d+)?) in minutes`)
	reRampDone   = regexp.MustCompile(`^Rampup complete`)
	reTestDone   = regexp.MustCompile(`^Test complete`)
	reDBVersion  = regexp.MustCompile(`^DBVersion\s*:\s*(.+)$`)
	reCLI        = regexp.MustCompile(`^HammerDB CLI v(\S+)`)
	reLogHeader  = regexp.MustCompile(`^Hammerdb Log @ (.+)$`)
	reProfHeader = regexp.MustCompile(`Hammerdb Time Profile Report @ (.+)$`)
	reTimestamp  = regexp.MustCompile(`^Timestamp \d+ @ (.+)$`)
	reDiset      = regexp.MustCompile(`^diset (\w+) (\w+) (.*)$`)
	reChanged    = regexp.MustCompile(`^Changed (\w+):(\w+) from .* to (.*) for .+$`)
	reVuset      = regexp.MustCompile(`^vuset vu (\d+)`)
	reSummary    = regexp.MustCompile(`^>>>>> SUMMARY OF (\d+) ACTIVE VIRTUAL USERS`)
	reCombined   = regexp.MustCompile(`^>>>>> COMBINED METRICS ACROSS ALL USERS`)
	reVUProfile  = regexp.MustCompile(`^>>>>> VIRTUAL USER (\d+)`)
	reProc       = regexp.MustCompile(`^>>>>> PROC: (\w+)\s*$`)
	rePair       = regexp.MustCompile(`([A-Z][A-Z0-9]*):\s*(-?\d+(?:\.\d+)?)(ms|%)?`)
	reSeparator  = regexp.MustCompile(`^(\+-)+\+?$`)
	// Lines that say the file is HammerDB output even without a result.
	reHammerDB = regexp.MustCompile(`^(Vuser \d+|hammerdb>|HammerDB|Hammerdb|>>>>> |\d+ Virtual Users Created|ALL VIRTUAL USERS COMPLETE|TEST RESULT : |\d+ Active Virtual Users configured)`)
)

// ParseError is an error at a line of a file (Line 0: the whole file).
type ParseError struct {
	// File is the file's name as given.
	File string
	// Line is the 1-based line number.
	Line int
	// Msg says what is wrong.
	Msg string
	// Err is the cause the error matches with errors.Is (ErrNotHammerDB),
	// or nil.
	Err error
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ErrNotHammerDB is matched (errors.Is) by the error of a file that is not
// HammerDB output.
var ErrNotHammerDB = errors.New("not HammerDB output")

// tclTimeLayouts are the formats of Tcl's [clock format] in HammerDB logs.
var tclTimeLayouts = []string{"Mon Jan 02 15:04:05 MST 2006", "Mon Jan _2 15:04:05 MST 2006", time.UnixDate, time.ANSIC,
	"2006-01-02 15:04:05", time.RFC3339}

func parseTclTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range tclTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// cleanLine strips what wraps HammerDB's lines in its several outputs: a
// carriage return, the CLI prompt, JSON quoting of the web service's job
// output.
func cleanLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	t := strings.TrimSpace(s)
	for strings.HasPrefix(t, "hammerdb>") {
		t = strings.TrimSpace(strings.TrimPrefix(t, "hammerdb>"))
	}
	if strings.HasPrefix(t, `"`) {
		t = strings.TrimSuffix(strings.TrimSuffix(t, ","), `"`)
		t = strings.TrimPrefix(t, `"`)
	}
	return t
}

// ParseHammerDB reads HammerDB output; name is used in messages. It
// returns an error naming the file and line for output it cannot read, and
// one matching ErrNotHammerDB for a file that is not HammerDB output.
func ParseHammerDB(r io.Reader, name string) (*HammerDBLog, error) {
	p := &parser{log: &HammerDBLog{Name: name, Settings: map[string]string{}}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		p.lineNo++
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: p.lineNo + 1, Msg: err.Error()}
	}
	return p.finish()
}

type parser struct {
	log    *HammerDBLog
	lineNo int

	recognised     bool
	firstLine      int
	firstText      string
	active         int // from "N Active Virtual Users configured", reset by each result
	created        int // active users from "N Virtual Users Created"
	vuset          int
	rampup, timed  time.Duration
	lastStamp      time.Time
	start, mStart  time.Time
	mEnd           time.Time
	prof           *HammerDBProfile // the summary being read
	inVUProfile    bool             // reading a per-virtual-user profile (ignored)
	proc           *store.TxnSummary
	procName       string
	pendingProfile []HammerDBProfile
}

func (p *parser) errf(format string, args ...any) error {
	return &ParseError{File: p.log.Name, Line: p.lineNo, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) line(raw string) error {
	text := cleanLine(raw)
	if text == "" {
		return nil
	}
	if p.firstLine == 0 {
		p.firstLine, p.firstText = p.lineNo, text
	}
	if reHammerDB.MatchString(text) || reProfHeader.MatchString(text) {
		p.recognised = true
	}
	if m := reVuser.FindStringSubmatch(text); m != nil {
		text = strings.TrimSpace(m[2])
	}

	if done, err := p.profileLine(text); done {
		return err
	}
	return p.testLine(text)
}

// profileLine parses a line of an xtprof time profile; done is false when
// the line is not one.
func (p *parser) profileLine(text string) (done bool, err error) {
	switch {
	case reSeparator.MatchString(text):
		p.endProfile()
		return true, nil
	case reSummary.MatchString(text), reCombined.MatchString(text):
		p.endProfile()
		users := 0
		if m := reSummary.FindStringSubmatch(text); m != nil {
			users, _ = strconv.Atoi(m[1])
		}
		p.prof = &HammerDBProfile{Line: p.lineNo, Users: users}
		return true, nil
	case reVUProfile.MatchString(text):
		p.endProfile()
		p.inVUProfile = true
		return true, nil
	}
	if m := reProc.FindStringSubmatch(text); m != nil {
		if p.inVUProfile {
			return true, nil
		}
		if p.prof == nil {
			return true, p.errf("%q outside a profile summary (no \">>>>> SUMMARY OF N ACTIVE VIRTUAL USERS\" line before it)", text)
		}
		p.procName = strings.ToUpper(m[1])
		typ, ok := procTypes[p.procName]
		if !ok {
			p.proc = nil // another procedure (gettimestamp): not a transaction
			return true, nil
		}
		p.prof.Txn = append(p.prof.Txn, store.TxnSummary{Type: typ})
		p.proc = &p.prof.Txn[len(p.prof.Txn)-1]
		return true, nil
	}
	if strings.HasPrefix(text, "CALLS:") || strings.HasPrefix(text, "P99:") {
		if p.inVUProfile {
			return true, nil
		}
		if p.prof == nil || p.procName == "" {
			return true, p.errf("%q outside a \">>>>> PROC: NAME\" block of a time profile", oneLine(text))
		}
		if p.proc == nil {
			return true, nil
		}
		return true, p.pairs(text)
	}
	if reProfHeader.MatchString(text) {
		p.endProfile()
		if t, ok := parseTclTime(reProfHeader.FindStringSubmatch(text)[1]); ok && p.log.Started.IsZero() {
			p.log.Started = t
		}
		return true, nil
	}
	return false, nil
}

// testLine parses a line of a timed test's output and the log's settings.
func (p *parser) testLine(text string) error {
	switch {
	case strings.HasPrefix(text, "TEST RESULT"):
		return p.result(text)
	case reActive.MatchString(text):
		p.active, _ = strconv.Atoi(reActive.FindStringSubmatch(text)[1])
	case reCreated.MatchString(text):
		m := reCreated.FindStringSubmatch(text)
		n, _ := strconv.Atoi(m[1])
		if m[2] != "" {
			n-- // the monitor virtual user
		}
		p.created = n
		p.active = 0
	case reRampup.MatchString(text):
		p.rampup = minutes(reRampup.FindStringSubmatch(text)[1])
		p.start = p.lastStamp
	case reTimed.MatchString(text):
		p.timed = minutes(reTimed.FindStringSubmatch(text)[1])
	case reRampDone.MatchString(text):
		p.mStart = p.lastStamp
	case reTestDone.MatchString(text):
		p.mEnd = p.lastStamp
	case reDBVersion.MatchString(text):
		p.log.DBVersion = strings.TrimSpace(reDBVersion.FindStringSubmatch(text)[1])
	case reCLI.MatchString(text):
		p.log.Version = reCLI.FindStringSubmatch(text)[1]
	case reLogHeader.MatchString(text):
		if t, ok := parseTclTime(reLogHeader.FindStringSubmatch(text)[1]); ok {
			p.stamp(t)
		}
	case reTimestamp.MatchString(text):
		if t, ok := parseTclTime(reTimestamp.FindStringSubmatch(text)[1]); ok {
			p.stamp(t)
		}
	case reDiset.MatchString(text):
		m := reDiset.FindStringSubmatch(text)
		p.log.Settings[m[1]+"."+m[2]] = strings.TrimSpace(m[3])
	case reChanged.MatchString(text):
		m := reChanged.FindStringSubmatch(text)
		p.log.Settings[m[1]+"."+m[2]] = strings.TrimSpace(m[3])
	case reVuset.MatchString(text):
		p.vuset, _ = strconv.Atoi(reVuset.FindStringSubmatch(text)[1])
	}
	return nil
}

func (p *parser) stamp(t time.Time) {
	p.lastStamp = t
	if p.log.Started.IsZero() {
		p.log.Started = t
	}
}

func minutes(s string) time.Duration {
	f, _ := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Minute))
}

// pairs reads "CALLS: 322104 MIN: 2.269ms AVG: 9.236ms ..." into the
// current procedure.
func (p *parser) pairs(text string) error {
	ms := rePair.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return p.errf("cannot read the time profile line %q", oneLine(text))
	}
	for _, m := range ms {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return p.errf("bad number %q in the time profile line", m[2])
		}
		switch m[1] {
		case "CALLS":
			p.proc.Count = int64(v)
		case "AVG":
			p.proc.MeanMs = v
		case "MAX":
			p.proc.MaxMs = v
		case "P99":
			p.proc.P99Ms = v
		case "P95":
			p.proc.P95Ms = v
		case "P90":
			p.proc.P90Ms = v
		case "P50":
			p.proc.P50Ms = v
		}
	}
	return nil
}

// endProfile closes the summary being read and attaches it to its test.
func (p *parser) endProfile() {
	p.inVUProfile = false
	p.proc, p.procName = nil, ""
	if p.prof == nil {
		return
	}
	prof := *p.prof
	p.prof = nil
	if len(prof.Txn) == 0 {
		return
	}
	if !attach(p.log.Tests, prof) {
		p.pendingProfile = append(p.pendingProfile, prof)
	}
}

// attach gives a profile to the latest test of the same users count that
// has none (any users count when the profile does not say).
func attach(tests []HammerDBTest, prof HammerDBProfile) bool {
	for i := len(tests) - 1; i >= 0; i-- {
		t := &tests[i]
		if len(t.Txn) == 0 && (prof.Users == 0 || prof.Users == t.Users) {
			t.Txn = prof.Txn
			return true
		}
	}
	return false
}

func (p *parser) result(text string) error {
	t := HammerDBTest{Line: p.lineNo, Rampup: p.rampup, Duration: p.timed, Start: p.start, MeasureStart: p.mStart, MeasureEnd: p.mEnd}
	var err1, err2 error
	if m := reResultNew.FindStringSubmatch(text); m != nil {
		t.NOPM, err1 = strconv.ParseFloat(m[1], 64)
		t.TPM, err2 = strconv.ParseFloat(m[2], 64)
		t.DB = m[3]
	} else if m := reResultOld.FindStringSubmatch(text); m != nil {
		t.TPM, err1 = strconv.ParseFloat(m[1], 64)
		t.DB = m[2]
		t.NOPM, err2 = strconv.ParseFloat(m[3], 64)
	} else {
		return p.errf("cannot read the test result %q: want \"TEST RESULT : System achieved N NOPM from M <database> TPM\"", oneLine(text))
	}
	if err := errors.Join(err1, err2); err != nil {
		return p.errf("bad number in %q: %v", oneLine(text), err)
	}
	switch {
	case p.active > 0:
		t.Users = p.active
	case p.created > 0:
		t.Users = p.created
	case p.vuset > 0:
		t.Users = p.vuset
	default:
		return p.errf("test result without its number of virtual users (no \"N Active Virtual Users configured\" or \"N Virtual Users Created\" line before it)")
	}
	p.log.Tests = append(p.log.Tests, t)
	// The next test states its own users, ramp-up and times.
	p.active, p.start, p.mStart, p.mEnd = 0, time.Time{}, time.Time{}, time.Time{}
	// A profile printed before its result (none known) waits in pending.
	var still []HammerDBProfile
	for _, prof := range p.pendingProfile {
		if !attach(p.log.Tests, prof) {
			still = append(still, prof)
		}
	}
	p.pendingProfile = still
	return nil
}

func (p *parser) finish() (*HammerDBLog, error) {
	p.endProfile()
	p.log.Profiles = p.pendingProfile
	if !p.recognised {
		if p.firstLine == 0 {
			return nil, &ParseError{File: p.log.Name, Msg: "empty file: " + ErrNotHammerDB.Error(), Err: ErrNotHammerDB}
		}
		return nil, &ParseError{File: p.log.Name, Line: p.firstLine, Err: ErrNotHammerDB,
			Msg: fmt.Sprintf("%s: expected lines like \"Vuser 1:TEST RESULT : System achieved 11573 NOPM from 26934 PostgreSQL TPM\", found %q",
				ErrNotHammerDB, oneLine(p.firstText))}
	}
	if len(p.log.Tests) == 0 && len(p.log.Profiles) == 0 {
		return nil, &ParseError{File: p.log.Name, Msg: "HammerDB output without a TEST RESULT line nor a time profile summary: " +
			"import the log of a timed TPROC-C run (driver \"timed\"), which ends with \"TEST RESULT : System achieved ... NOPM from ... TPM\""}
	}
	return p.log, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// Run converts a parsed log to a run and its steps for the store: one step
// per test, numbered per users count (the second test with the same users
// count is repeat 2 of that step). label names the run.
func (l *HammerDBLog) Run(label string) (store.Run, []store.Step) {
	r := store.Run{Label: label, Source: store.SourceHammerDB, Status: store.StatusComplete, Target: "hammerdb", StartedAt: l.Started,
		Env: map[string]string{"source.file": l.Name}, Repeats: 1,
		Note: "imported from HammerDB: TPM is HammerDB's database transaction rate (commits and rollbacks per minute), NOPM its New-Orders per minute"}
	if l.Version != "" {
		r.Env["hammerdb.version"] = l.Version
	}
	for k, v := range l.Settings {
		r.Env["hammerdb."+k] = v
		if strings.HasSuffix(k, "count_ware") {
			r.Warehouses, _ = strconv.Atoi(v)
		}
		if strings.HasSuffix(k, "keyandthink") {
			r.KeyingThinking = v == "true" || v == "1"
		}
	}
	index := map[int]int{}
	seen := map[int]int{}
	var steps []store.Step
	var last time.Time
	for _, t := range l.Tests {
		if r.Engine == "" && t.DB != "" {
			r.EngineVersion = t.DB
			if e, ok := engineNames[strings.ToLower(t.DB)]; ok {
				r.Engine = e
			} else {
				r.Engine = strings.ToLower(strings.ReplaceAll(t.DB, " ", ""))
			}
		}
		if r.Rampup == 0 {
			r.Rampup = t.Rampup
		}
		if r.Duration == 0 {
			r.Duration = t.Duration
		}
		idx, ok := index[t.Users]
		if !ok {
			idx = len(index)
			index[t.Users] = idx
			r.Users = append(r.Users, t.Users)
		}
		seen[t.Users]++
		r.Repeats = max(r.Repeats, seen[t.Users])
		s := store.Step{Repeat: seen[t.Users], Index: idx, Users: t.Users, TPM: t.TPM, NOPM: t.NOPM, Txn: t.Txn,
			Start: t.Start, MeasureStart: t.MeasureStart, MeasureEnd: t.MeasureEnd}
		s.DB.TPM = t.TPM
		if t.Users > 0 {
			s.TPMPerUser = t.TPM / float64(t.Users)
		}
		steps = append(steps, s)
		for _, ts := range []time.Time{t.Start, t.MeasureStart, t.MeasureEnd} {
			if ts.After(last) {
				last = ts
			}
		}
	}
	if l.DBVersion != "" {
		if r.EngineVersion != "" {
			r.EngineVersion += " " + l.DBVersion
		} else {
			r.EngineVersion = l.DBVersion
		}
	}
	r.EndedAt = last
	return r, steps
}

// Imported is a run stored by ImportHammerDB, or a time profile attached
// to a run stored before.
type Imported struct {
	// File is the file the run came from; Profiles the xtprof files that
	// were merged into it.
	File     string
	Profiles []string
	Run      store.Run
	Steps    []store.Step
	// Attached is set when File is a time profile given alone that was
	// attached to Run, a HammerDB run imported before (Steps are the steps
	// that received latencies).
	Attached bool
	// LatencyOnly is set when File is a time profile given alone that no
	// imported run matched: Run is a run with its latencies and no TPM.
	LatencyOnly bool
}

// Options tune ImportHammerDB.
type Options struct {
	// Label names the runs: "hammerdb:BASE" (the file's base name) when
	// empty; with several runs, ":BASE" is appended to it.
	Label string
	// Replace deletes the runs a file was imported as before, instead of
	// refusing to import it again.
	Replace bool
}

// envHash is the run environment key holding the SHA-256 of the imported
// file, by which a second import of the same file is recognised.
const envHash = "source.sha256"

// ImportHammerDB parses HammerDB output files and stores one run per file
// with test results, with Source "hammerdb" and Status "complete". A file
// holding only an xtprof summary (hdbxtprofile.log) completes the run of
// the file before it, test by test on the users count; given without such
// a file, it completes the latest imported HammerDB run with a step of its
// users count, or, when none has one, becomes a latency-only run. A file
// imported before is refused (a ParseError) unless opt.Replace. Nothing is
// stored unless every file can be read and placed.
func ImportHammerDB(ctx context.Context, st *store.Store, files []string, opt Options) ([]Imported, error) {
	logs, hashes, err := readHammerDBLogs(files)
	if err != nil {
		return nil, err
	}
	stored, err := st.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	out, orphans, err := groupProfiles(logs)
	if err != nil {
		return nil, err
	}
	replaced, err := reimported(files, hashes, stored, opt.Replace)
	if err != nil {
		return nil, err
	}
	attached, err := placeOrphans(ctx, st, stored, replaced, orphans)
	if err != nil {
		return nil, err
	}
	byName := map[string]*HammerDBLog{}
	for _, l := range logs {
		byName[l.Name] = l
	}
	for i := range out {
		l := byName[out[i].File]
		if l.Started.IsZero() { // no timestamp in the log: when it was written
			if fi, err := os.Stat(l.Name); err == nil {
				l.Started = fi.ModTime()
			}
		}
		run, steps := l.Run(runLabel(opt.Label, l.Name, len(out)+len(attached)))
		run.Env[envHash] = hashes[l.Name]
		if len(out[i].Profiles) > 0 {
			run.Env["source.profiles"] = strings.Join(out[i].Profiles, ",")
		}
		out[i].Run, out[i].Steps = run, steps
	}
	for i := range attached {
		if attached[i].LatencyOnly {
			l := byName[attached[i].File]
			attached[i].Run.Label = runLabel(opt.Label, l.Name, len(out)+len(attached))
			attached[i].Run.Env[envHash] = hashes[l.Name]
		}
	}
	for _, id := range replaced {
		if err := st.DeleteRun(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	for i := range out {
		if err := storeRun(ctx, st, &out[i].Run, out[i].Steps); err != nil {
			return out[:i], err
		}
	}
	for i, a := range attached {
		if a.LatencyOnly {
			if err := storeRun(ctx, st, &attached[i].Run, attached[i].Steps); err != nil {
				return out, err
			}
		} else {
			for _, s := range a.Steps {
				if err := st.AddStepTxn(ctx, s.ID, s.Txn); err != nil {
					return out, err
				}
			}
		}
		out = append(out, attached[i])
	}
	return out, nil
}

// readHammerDBLogs parses the files, in order, with each file's SHA-256.
func readHammerDBLogs(files []string) ([]*HammerDBLog, map[string]string, error) {
	var logs []*HammerDBLog
	hashes := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		l, err := ParseHammerDB(bytes.NewReader(b), f)
		if err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(b)
		hashes[f] = hex.EncodeToString(sum[:])
		logs = append(logs, l)
	}
	return logs, hashes, nil
}

// groupProfiles makes one import per log with tests, attaching each
// time-profile-only log to the log before it; profiles with no log before
// them are the orphans.
func groupProfiles(logs []*HammerDBLog) ([]Imported, []*HammerDBLog, error) {
	var out []Imported
	var orphans []*HammerDBLog
	var cur *HammerDBLog
	for _, l := range logs {
		if len(l.Tests) > 0 {
			cur = l
			out = append(out, Imported{File: l.Name})
			continue
		}
		// A time profile on its own: it belongs to the previous log.
		if cur == nil {
			orphans = append(orphans, l)
			continue
		}
		for _, prof := range l.Profiles {
			if !attach(cur.Tests, prof) {
				return nil, nil, &ParseError{File: l.Name, Line: prof.Line,
					Msg: fmt.Sprintf("time profile of %d virtual users matches no test of %s without one", prof.Users, cur.Name)}
			}
		}
		last := &out[len(out)-1]
		last.Profiles = append(last.Profiles, l.Name)
		if cur.Version == "" {
			cur.Version = l.Version
		}
		if cur.Started.IsZero() {
			cur.Started = l.Started
		}
	}
	return out, orphans, nil
}

// reimported are the stored runs of files imported before (by hash): an
// error unless replace, else the ids of the runs to replace.
func reimported(files []string, hashes map[string]string, stored []store.Run, replace bool) ([]string, error) {
	var replaced []string
	for _, f := range files {
		for _, r := range stored {
			if r.Source != store.SourceHammerDB || r.Env[envHash] != hashes[f] {
				continue
			}
			if !replace {
				return nil, &ParseError{File: f, Msg: fmt.Sprintf("already imported as run %s (label %q); give --replace to import it again", r.ID, r.Label)}
			}
			replaced = append(replaced, r.ID)
		}
	}
	return replaced, nil
}

// runLabel is the label of an imported run: "hammerdb:BASE" without a
// label, the label itself for a single run, "LABEL:BASE" for several.
func runLabel(label, file string, runs int) string {
	base := filepath.Base(file)
	switch {
	case label == "":
		return "hammerdb:" + base
	case runs > 1:
		return label + ":" + base
	}
	return label
}

// placeOrphans finds where the time profiles given without their log go:
// each profile to the latest imported HammerDB run (newest first in
// stored, leaving out the runs being replaced) with a step of its users
// count, that step's latest repeat without latencies; a file none of
// whose profiles matches a run becomes a latency-only run (its Run not yet
// stored and without a label).
func placeOrphans(ctx context.Context, st *store.Store, stored []store.Run, replaced []string, orphans []*HammerDBLog) ([]Imported, error) {
	var out []Imported
	loaded := map[string][]store.Step{}
	for _, l := range orphans {
		var hits []Imported // one per run
		var missing []HammerDBProfile
		for _, prof := range l.Profiles {
			if prof.Users == 0 {
				return nil, &ParseError{File: l.Name, Line: prof.Line,
					Msg: "a time profile that does not say its virtual users: give it after the HammerDB log of the run it belongs to"}
			}
			r, step, err := latestStep(ctx, st, stored, replaced, loaded, prof.Users)
			if err != nil {
				return nil, err
			}
			if r == nil {
				missing = append(missing, prof)
				continue
			}
			if len(step.Txn) > 0 {
				return nil, &ParseError{File: l.Name, Line: prof.Line, Msg: fmt.Sprintf(
					"run %s (label %q), the latest imported HammerDB run with %d virtual users, already has their latencies", r.ID, r.Label, prof.Users)}
			}
			step.Txn = prof.Txn
			i := slices.IndexFunc(hits, func(im Imported) bool { return im.Run.ID == r.ID })
			if i < 0 {
				hits = append(hits, Imported{File: l.Name, Run: *r, Attached: true})
				i = len(hits) - 1
			}
			hits[i].Steps = append(hits[i].Steps, *step)
		}
		switch {
		case len(missing) == 0:
			out = append(out, hits...)
		case len(hits) == 0:
			lat := &HammerDBLog{Name: l.Name, Version: l.Version, Started: l.Started}
			for _, p := range missing {
				lat.Tests = append(lat.Tests, HammerDBTest{Line: p.Line, Users: p.Users, Txn: p.Txn})
			}
			run, steps := lat.Run("")
			run.Note = "imported from a HammerDB time profile (xtprof) alone: latencies only, TPM and NOPM were not measured"
			out = append(out, Imported{File: l.Name, Run: run, Steps: steps, LatencyOnly: true})
		default:
			return nil, &ParseError{File: l.Name, Line: missing[0].Line, Msg: fmt.Sprintf(
				"time profile of %d virtual users matches no imported HammerDB run, while others of the file do; import it after its log", missing[0].Users)}
		}
	}
	return out, nil
}

// latestStep returns the latest imported HammerDB run (not being replaced)
// with a step of users virtual users, and that step's latest repeat
// without latencies (else its latest repeat); nil when no run has one.
func latestStep(ctx context.Context, st *store.Store, stored []store.Run, replaced []string, loaded map[string][]store.Step, users int) (*store.Run, *store.Step, error) {
	for i := range stored {
		r := &stored[i]
		if r.Source != store.SourceHammerDB || !slices.Contains(r.Users, users) || slices.Contains(replaced, r.ID) {
			continue
		}
		steps, ok := loaded[r.ID]
		if !ok {
			var err error
			if _, steps, err = st.LoadRun(ctx, r.ID); err != nil {
				return nil, nil, err
			}
			loaded[r.ID] = steps
		}
		var latest, free *store.Step
		for j := range steps {
			if s := &steps[j]; s.Users == users {
				latest = s
				if len(s.Txn) == 0 {
					free = s
				}
			}
		}
		if free != nil {
			return r, free, nil
		}
		if latest != nil {
			return r, latest, nil
		}
	}
	return nil, nil, nil
}

// storeRun stores a run and its steps; a run whose steps cannot all be
// stored is deleted again.
func storeRun(ctx context.Context, st *store.Store, r *store.Run, steps []store.Step) error {
	if err := st.CreateRun(ctx, r); err != nil {
		return err
	}
	for i := range steps {
		steps[i].RunID = r.ID
		if err := st.AddStep(ctx, &steps[i]); err != nil {
			_ = st.DeleteRun(context.WithoutCancel(ctx), r.ID)
			return err
		}
	}
	return nil
}
