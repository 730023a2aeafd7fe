package store

import (
	"context"
	"sync"

	"github.com/notesbench/notesbench/contract"
)

// memPool keeps the in-memory databases of closed stores, open with their
// connections and prepared statements, for the next in-memory store. A
// replication runs the same experiment on a fresh in-memory store hundreds of
// times, and opening one (connections, pragmas, the schema, parsing it again
// on each connection, preparing every statement again) cost about as much as
// a tenth of a run's writes. A recycled database is emptied first (empty
// tables, the same schema), so a store cannot tell it from a new one, and it
// belongs to one store at a time: a store gives its database back only when
// it closes with every Conn closed.
var memPool struct {
	mu  sync.Mutex
	dbs map[contract.Synchronous][]*memDB
}

// maxPooled is how many databases memPool keeps per synchronous setting; a
// store closing when it is full closes its database.
const maxPooled = 16

// memDB is an in-memory database no store holds: its URI and its open
// connections.
type memDB struct {
	uri   string
	conns []*sqlConn
}

// takeMemDB returns a pooled database for the synchronous setting, emptied,
// or nil when there is none.
func takeMemDB(sync contract.Synchronous) *memDB {
	for {
		memPool.mu.Lock()
		dbs := memPool.dbs[sync]
		if len(dbs) == 0 {
			memPool.mu.Unlock()
			return nil
		}
		m := dbs[len(dbs)-1]
		memPool.dbs[sync] = dbs[:len(dbs)-1]
		memPool.mu.Unlock()
		if err := m.empty(); err == nil {
			return m
		}
		m.close() // a database that cannot be emptied is not reused
	}
}

// putMemDB pools m, or closes it when the pool is full.
func putMemDB(sync contract.Synchronous, m *memDB) error {
	memPool.mu.Lock()
	if len(memPool.dbs[sync]) < maxPooled {
		if memPool.dbs == nil {
			memPool.dbs = map[contract.Synchronous][]*memDB{}
		}
		memPool.dbs[sync] = append(memPool.dbs[sync], m)
		memPool.mu.Unlock()
		return nil
	}
	memPool.mu.Unlock()
	return m.close()
}

// empty deletes every row of every table, in one transaction.
func (m *memDB) empty() error {
	c := &Conn{s: &Store{}, sc: m.conns[0]}
	return c.inTx(context.Background(), func() error {
		for _, table := range []string{"notes", "tabs", "attachments", "idempotency"} {
			if err := c.exec(context.Background(), "DELETE FROM "+table); err != nil {
				return err
			}
		}
		return nil
	})
}

func (m *memDB) close() error {
	var first error
	for _, sc := range m.conns {
		if err := sc.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
