//go:build !linux

package clientaudit

import "os"

// pending knows of no bytes waiting: the order of a call's line and the
// requests after it is then the order in which they were taken.
func pending(*os.File) int64 { return 0 }
