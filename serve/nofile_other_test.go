//go:build !linux

package serve

import "errors"

// setNoFile is for Linux only, where TestOutOfFileDescriptors runs.
func setNoFile(uint64) error {
	return errors.New("lowering the limit of open files is done on Linux only")
}
