package p

import (
	"testing"

	tp "github.com/notesbench/notesbench/internal/testpass"
)

var kills = tp.Sized(5, 50)

func TestDirect(t *testing.T) { tp.Large(t, "direct") }

func TestThroughHelper(t *testing.T) { endToEnd(t) }

func endToEnd(t *testing.T) { helper2(t) }

func helper2(t *testing.T) {
	if tp.Race {
		t.Skip()
	}
}

func TestThroughVar(t *testing.T) { _ = kills }

func TestSmall(t *testing.T) { small() }

func small() {}

func TestMain(m *testing.M) { _ = tp.Race }

func Testlower(t *testing.T) { tp.Large(t, "not a test go test runs") }
