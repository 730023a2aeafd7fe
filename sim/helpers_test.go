package sim

import "context"

// bg is the context of calls no test cancels.
var bg = context.Background()
