package backup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	_ "github.com/microsoft/go-mssqldb" // the "sqlserver" driver
)

// mssqlFile is a file of a backup (RESTORE FILELISTONLY).
type mssqlFile struct {
	logical, physical string
}

// quoteBracket quotes a T-SQL identifier.
func quoteBracket(s string) string { return "[" + strings.ReplaceAll(s, "]", "]]") + "]" }

// quoteN quotes a T-SQL Unicode string literal.
func quoteN(s string) string { return "N'" + strings.ReplaceAll(s, "'", "''") + "'" }

// mssqlBackupSQL is the BACKUP statement of one cycle.
func mssqlBackupSQL(db, file string) string {
	return "BACKUP DATABASE " + quoteBracket(db) + " TO DISK = " + quoteN(file) + " WITH COPY_ONLY, INIT, STATS = 10"
}

// mssqlFileListSQL lists the files a backup holds.
func mssqlFileListSQL(file string) string {
	return "RESTORE FILELISTONLY FROM DISK = " + quoteN(file)
}

// mssqlRestoreSQL restores the backup in file as database db, moving each
// file next to its original under a name of its own.
func mssqlRestoreSQL(db, file string, files []mssqlFile) string {
	var b strings.Builder
	b.WriteString("RESTORE DATABASE " + quoteBracket(db) + " FROM DISK = " + quoteN(file) + " WITH REPLACE, STATS = 10")
	for _, f := range files {
		b.WriteString(",\n    MOVE " + quoteN(f.logical) + " TO " + quoteN(movedPath(f, db)))
	}
	return b.String()
}

// movedPath is where a restored file goes: the original's directory, named
// <db>_<logical name><original extension>.
func movedPath(f mssqlFile, db string) string {
	sep := "/"
	if strings.Contains(f.physical, `\`) {
		sep = `\`
	}
	dir, base := "", f.physical
	if i := strings.LastIndex(f.physical, sep); i >= 0 {
		dir, base = f.physical[:i+1], f.physical[i+1:]
	}
	ext := ""
	if i := strings.LastIndex(base, "."); i >= 0 {
		ext = base[i:]
	}
	return dir + db + "_" + f.logical + ext
}

// joinServerPath joins a directory of the server host and a file name.
func joinServerPath(dir, file string) string {
	sep := "/"
	if strings.Contains(dir, `\`) || (len(dir) >= 2 && dir[1] == ':') {
		sep = `\`
	}
	return strings.TrimRight(dir, `/\`) + sep + file
}

// mssqlDropSQL drops a database, closing its sessions.
func mssqlDropSQL(db string) string {
	q := quoteBracket(db)
	return "IF DB_ID(" + quoteN(db) + ") IS NOT NULL BEGIN ALTER DATABASE " + q + " SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE " + q + "; END"
}

type mssqlMethod struct {
	db      *sql.DB
	dbname  string
	ver     string
	dir     string
	tables  [][2]string // schema, table with rows in the source
	backups map[string]string
}

// MSSQL is SQL Server's method: the server's own BACKUP and RESTORE DATABASE.
var MSSQL = Method{func(ctx context.Context, t Target, opt Options) (method, error) { return newMSSQL(ctx, t, opt) }}

func newMSSQL(ctx context.Context, t Target, opt Options) (_ *mssqlMethod, err error) {
	if opt.Method != "" && opt.Method != MethodMSSQL {
		return nil, fmt.Errorf("backup: method %q is not available for SQL Server (use %q)", opt.Method, MethodMSSQL)
	}
	m := &mssqlMethod{dir: opt.Dir, backups: map[string]string{}}
	if m.db, err = sql.Open("sqlserver", t.DSN()); err != nil {
		return nil, fmt.Errorf("backup: SQL Server DSN: %w", err)
	}
	defer func() {
		if err != nil {
			m.db.Close()
		}
	}()
	m.db.SetMaxOpenConns(2)
	var ver string
	if err := m.db.QueryRowContext(ctx, "SELECT DB_NAME(), @@VERSION").Scan(&m.dbname, &ver); err != nil {
		return nil, fmt.Errorf("backup: connect to SQL Server: %w", err)
	}
	m.ver, _, _ = strings.Cut(ver, "\n")
	m.ver = strings.TrimSpace(m.ver)
	rows, err := m.db.QueryContext(ctx, "SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id WHERE t.is_ms_shipped = 0 ORDER BY t.name")
	if err != nil {
		return nil, fmt.Errorf("backup: list tables: %w", err)
	}
	var all [][2]string
	for rows.Next() {
		var st [2]string
		if err := rows.Scan(&st[0], &st[1]); err != nil {
			rows.Close()
			return nil, err
		}
		all = append(all, st)
	}
	rows.Close()
	var cands [][2]string
	for _, st := range all {
		for _, n := range tpccNames() {
			if strings.EqualFold(st[1], n) {
				cands = append(cands, st)
			}
		}
	}
	if len(cands) != len(tpccNames()) {
		cands = all[:min(len(all), 20)]
	}
	for _, st := range cands {
		var has int
		q := "SELECT CASE WHEN EXISTS (SELECT 1 FROM " + quoteBracket(st[0]) + "." + quoteBracket(st[1]) + ") THEN 1 ELSE 0 END"
		if err := m.db.QueryRowContext(ctx, q).Scan(&has); err != nil {
			return nil, fmt.Errorf("backup: look at table %s.%s: %w", st[0], st[1], err)
		}
		if has == 1 {
			m.tables = append(m.tables, st)
		}
	}
	return m, nil
}

func (m *mssqlMethod) name() string                { return MethodMSSQL }
func (m *mssqlMethod) version() string             { return m.ver }
func (m *mssqlMethod) serverPID() int              { return 0 }
func (m *mssqlMethod) local() bool                 { return false }
func (m *mssqlMethod) prepareWorkDir(string) error { return nil }
func (m *mssqlMethod) close()                      { m.db.Close() }

func (m *mssqlMethod) notes() []string {
	return []string{"BACKUP DATABASE ... WITH COPY_ONLY of database " + m.dbname + " on the server's disk; restore: RESTORE DATABASE as " +
		m.restoreDB() + " (files moved next to the originals), checked, then dropped"}
}

func (m *mssqlMethod) restoreDB() string { return m.dbname + "_rightsize_restore" }

func (m *mssqlMethod) defaultDir(ctx context.Context) (string, error) {
	var dir sql.NullString
	if err := m.db.QueryRowContext(ctx, "SELECT CAST(SERVERPROPERTY('InstanceDefaultBackupPath') AS nvarchar(4000))").Scan(&dir); err != nil || !dir.Valid || dir.String == "" {
		return "", errors.New("backup: the SQL Server does not report its default backup directory (before SQL Server 2019): give a directory on the server (--to)")
	}
	m.dir = dir.String
	return m.dir, nil
}

func (m *mssqlMethod) backup(ctx context.Context, name string, started func()) (int64, error) {
	file := joinServerPath(m.dir, "rightsize-"+m.dbname+"-"+name+".bak")
	m.backups[name] = file
	started()
	if _, err := m.db.ExecContext(ctx, mssqlBackupSQL(m.dbname, file)); err != nil {
		return 0, err
	}
	var n int64
	err := m.db.QueryRowContext(ctx, `SELECT TOP 1 CAST(backup_size AS bigint) FROM msdb.dbo.backupset
WHERE database_name = @p1 AND is_copy_only = 1 ORDER BY backup_finish_date DESC`, m.dbname).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("size of the backup (msdb.dbo.backupset): %w", err)
	}
	return n, nil
}

func (m *mssqlMethod) restore(ctx context.Context, name, _ string, _ int) (restoreStats, error) {
	var st restoreStats
	file := m.backups[name]
	rows, err := m.db.QueryContext(ctx, mssqlFileListSQL(file))
	if err != nil {
		return st, err
	}
	cols, _ := rows.Columns()
	var files []mssqlFile
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return st, err
		}
		var f mssqlFile
		for i, c := range cols {
			switch c {
			case "LogicalName":
				f.logical = fmt.Sprint(vals[i])
			case "PhysicalName":
				f.physical = fmt.Sprint(vals[i])
			}
		}
		files = append(files, f)
	}
	rows.Close()
	drop := func() {
		dctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		_, _ = m.db.ExecContext(dctx, mssqlDropSQL(m.restoreDB()))
	}
	drop()
	defer drop()
	if _, err := m.db.ExecContext(ctx, mssqlRestoreSQL(m.restoreDB(), file, files)); err != nil {
		return st, err
	}
	var empty []string
	for _, t := range m.tables {
		var has int
		q := "SELECT CASE WHEN EXISTS (SELECT 1 FROM " + quoteBracket(m.restoreDB()) + "." + quoteBracket(t[0]) + "." + quoteBracket(t[1]) + ") THEN 1 ELSE 0 END"
		if err := m.db.QueryRowContext(ctx, q).Scan(&has); err != nil || has != 1 {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			empty = append(empty, t[0]+"."+t[1])
		}
	}
	st.checked = len(empty) == 0
	if !st.checked {
		st.note = "restored tables without rows: " + strings.Join(empty, ", ")
	}
	return st, nil
}

func (m *mssqlMethod) where(name string) string { return m.backups[name] }

// remove deletes a backup file on the server.
func (m *mssqlMethod) remove(name string) error {
	file, ok := m.backups[name]
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := m.db.ExecContext(ctx, "EXEC master.sys.xp_delete_files "+quoteN(file)); err == nil {
		delete(m.backups, name)
		return nil
	}
	if _, err := m.db.ExecContext(ctx, "EXEC master.dbo.xp_delete_file 0, "+quoteN(file)); err != nil {
		return fmt.Errorf("backup file %s left on the server (xp_delete_files and xp_delete_file failed: %v)", file, err)
	}
	delete(m.backups, name)
	return nil
}
