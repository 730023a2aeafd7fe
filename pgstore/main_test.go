package pgstore

import (
	"os"
	"testing"

	"github.com/notesbench/notesbench/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
