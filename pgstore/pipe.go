package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The write path talks to the server through pgconn, pgx's wire layer, as
// pipelines of statements prepared once per connection: text parameters,
// binary results decoded here for the few types the write path reads. The
// messages on the wire are those pgx's batches send; what this leaves out is
// pgx's type map, which plans the encoding of every argument and the scan of
// every column on each call and cost a write about a tenth of its time.
// Reads and set-up keep pgx.

// prepares reports whether the write path prepares its statements on a
// pool's connections: with pgx's default query exec mode, cache_statement,
// only. With another mode named in the URL (default_query_exec_mode), as for
// a pooler in transaction mode that cannot keep a connection's prepared
// statements (pgx names cache_describe, describe_exec, exec and
// simple_protocol as fit for one), it sends each statement unnamed, parsed
// anew every time.
func prepares(pool *pgxpool.Pool) bool {
	return pool.Config().ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement
}

// stmtsKey names the statement cache in a connection's custom data.
const stmtsKey = "notesbench.statements"

// prepared returns the statement for sql on pc, prepared on first use and
// kept for the connection's life.
func prepared(ctx context.Context, pc *pgconn.PgConn, sql string) (*pgconn.StatementDescription, error) {
	m, _ := pc.CustomData()[stmtsKey].(map[string]*pgconn.StatementDescription)
	if m == nil {
		m = map[string]*pgconn.StatementDescription{}
		pc.CustomData()[stmtsKey] = m
	}
	if sd := m[sql]; sd != nil {
		return sd, nil
	}
	sd, err := pc.Prepare(ctx, "notesbench_"+strconv.Itoa(len(m)+1), sql, nil)
	if err != nil {
		return nil, err
	}
	m[sql] = sd
	return sd, nil
}

// queued is one statement of a pipeline and its arguments.
type queued struct {
	sql  string
	args []any
}

// binaryResults asks for every result column in binary format.
var binaryResults = []int16{1}

// pipeline sends stmts in one pipeline and one round trip, and hands each
// row of the statements' results to row (with the statement's index), in
// order (row may be nil for statements that return none). The first error wins; the pipeline is read to its end either way,
// so the connection is ready for the next call.
func pipeline(ctx context.Context, conn *pgx.Conn, prepare bool, stmts []queued, row func(i int, fields []pgconn.FieldDescription, values [][]byte) error) error {
	pc := conn.PgConn()
	var sds []*pgconn.StatementDescription
	if prepare {
		sds = make([]*pgconn.StatementDescription, len(stmts))
		for i, st := range stmts {
			sd, err := prepared(ctx, pc, st.sql)
			if err != nil {
				return err
			}
			sds[i] = sd
		}
	}
	var params [8][]byte
	p := pc.StartPipeline(ctx)
	for i, st := range stmts {
		values, err := encodeArgs(params[:0], st.args)
		if err != nil {
			p.Close()
			return fmt.Errorf("%s: %w", st.sql, err)
		}
		switch {
		case sds == nil:
			p.SendQueryParams(st.sql, values, nil, nil, binaryResults)
		case len(sds[i].Fields) > 0:
			p.SendQueryStatement(sds[i], values, nil, binaryResults)
		default:
			p.SendQueryStatement(sds[i], values, nil, nil)
		}
	}
	if err := p.Sync(); err != nil {
		p.Close()
		return err
	}
	var first error
	for i := range stmts {
		res, err := p.GetResults()
		if err != nil {
			first = err
			break
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			first = fmt.Errorf("pipeline: result %d is a %T, not rows", i+1, res)
			break
		}
		for rr.NextRow() {
			if row == nil {
				continue
			}
			if err := row(i, rr.FieldDescriptions(), rr.Values()); err != nil && first == nil {
				first = err
			}
		}
		if _, err := rr.Close(); err != nil {
			first = err
			break
		}
		if first != nil {
			break
		}
	}
	return errors.Join(first, p.Close())
}

// encodeArgs appends the text form of each argument to values: a string as
// it is, an integer in decimal, nil as NULL.
func encodeArgs(values [][]byte, args []any) ([][]byte, error) {
	for _, a := range args {
		switch a := a.(type) {
		case nil:
			values = append(values, nil)
		case string:
			values = append(values, []byte(a))
		case int64:
			values = append(values, strconv.AppendInt(nil, a, 10))
		case int:
			values = append(values, strconv.AppendInt(nil, int64(a), 10))
		default:
			return nil, fmt.Errorf("unsupported argument type %T", a)
		}
	}
	return values, nil
}

// The type OIDs of the columns the write path reads.
const (
	oidInt8        = 20
	oidInt4        = 23
	oidText        = 25
	oidVarchar     = 1043
	oidTimestamptz = 1184
)

// microsFromUnixToY2K is how far PostgreSQL's epoch (2000-01-01 UTC) is from
// Unix's, in microseconds.
const microsFromUnixToY2K = 946_684_800 * 1_000_000

// decode reads one binary column as pgx scans it into an any: bigint and
// integer as int64, text as string, timestamptz as a time.Time, NULL as nil.
func decode(f pgconn.FieldDescription, v []byte) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch f.DataTypeOID {
	case oidInt8:
		if len(v) == 8 {
			return int64(binary.BigEndian.Uint64(v)), nil
		}
	case oidInt4:
		if len(v) == 4 {
			return int64(int32(binary.BigEndian.Uint32(v))), nil
		}
	case oidText, oidVarchar:
		return string(v), nil
	case oidTimestamptz:
		if len(v) == 8 {
			us := int64(binary.BigEndian.Uint64(v))
			return time.Unix(microsFromUnixToY2K/1_000_000+us/1_000_000,
				(microsFromUnixToY2K%1_000_000*1_000)+(us%1_000_000*1_000)), nil
		}
	default:
		return nil, fmt.Errorf("column %s: unexpected type OID %d", f.Name, f.DataTypeOID)
	}
	return nil, fmt.Errorf("column %s: %d bytes for type OID %d", f.Name, len(v), f.DataTypeOID)
}
