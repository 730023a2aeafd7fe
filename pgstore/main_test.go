package pgstore

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/notesbench/notesbench/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
