package nemesis

import (
	"context"

	"github.com/notesbench/notesbench/history"
)

// LoseReplies drops the reply to the next write after the server sent it,
// and cuts the connection: the write committed, the client cannot know.
type LoseReplies struct{}

func (LoseReplies) Kind() string  { return history.FaultLoseReplies }
func (LoseReplies) Place() Place  { return Wire }
func (LoseReplies) About() string { return "drop a write's reply after the server sent it" }

func (n LoseReplies) Invoke(_ context.Context, r Victim) bool { return r.Arm(n.Kind()) }
